import Foundation
import Testing

@testable import PipelineCore

@Suite("Format table")
struct ImageFormatRegistryTests {
    static let pam = ImageFormat(
        identifier: "pam", names: ["netpbm"], mimeTypes: ["image/x-portable-arbitrarymap"], fileExtensions: ["pam"],
        signature: .ascii("P7\n"))

    @Test("A plugin's registered format is sniffed and found by identifier, name, extension and MIME type")
    func pluginFormat() {
        let table = ImageFormatRegistry()
        #expect(table.detect(in: Array("P7\nWIDTH 1".utf8)) == .undefined)
        table.register(Self.pam)
        #expect(table.detect(in: Array("P7\nWIDTH 1".utf8)) == Self.pam)
        #expect(table.format(named: "PAM") == Self.pam)
        #expect(table.format(named: "netpbm") == Self.pam)
        #expect(table.format(named: ".pam") == Self.pam)
        #expect(table.format(named: "image/x-portable-arbitrarymap") == Self.pam)
        #expect(table.formats.last == Self.pam)
        table.unregister(Self.pam)
        #expect(table.detect(in: Array("P7\nWIDTH 1".utf8)) == .undefined)
        #expect(table.format(named: "pam") == nil)
    }

    @Test("Registering a taken identifier replaces the entry, and its signature is asked first")
    func replacingABuiltIn() {
        let table = ImageFormatRegistry()
        let brand = { (major: String, compatible: String) in [0, 0, 0, 0x14] + Array("ftyp\(major)\0\0\0\0\(compatible)".utf8) }
        #expect(table.detect(in: brand("mif1", "avif")) == .heif)
        // A stricter AVIF entry that also reads the compatible brands, as a plugin might register.
        let avif = ImageFormat(
            identifier: "avif", mimeTypes: ["image/avif"], fileExtensions: ["avif"], supportsAnimation: true,
            signature: ImageFormat.Signature { $0.has("ftyp".utf8, at: 4) && $0.has("avif".utf8, at: 16) })
        table.register(avif)
        #expect(table.detect(in: brand("mif1", "avif")) == .avif)
        #expect(table.formats.filter { $0.identifier == "avif" }.count == 1)
        #expect(table.formats.count == ImageFormat.builtIn.count)
    }

    @Test("The shared table starts with the built-ins, and ImageFormat's look-ups read it")
    func sharedTable() {
        #expect(ImageFormat.builtIn.allSatisfy { ImageFormat.known.contains($0) })
        #expect(ImageFormat.builtIn.filter(\.supportsAnimation).map(\.identifier) == ["png", "webp", "gif", "avif", "jxl"])
        #expect(ImageFormat.named("apng") == .png)
        #expect(ImageFormat.named("image/apng") == .png)
        let probe = ImageFormat(
            identifier: "registry-test", mimeTypes: ["application/x-registry-test"], fileExtensions: ["rtst"],
            signature: .ascii("REGISTRY-TEST"))
        ImageFormatRegistry.shared.register(probe)
        defer { ImageFormatRegistry.shared.unregister(probe) }
        #expect(ImageFormat.detect(in: Data("REGISTRY-TEST...".utf8)) == probe)
        #expect(ImageFormat.named("rtst") == probe)
    }

    @Test("A name that is one format's identifier and another's extension means the identifier")
    func identifierWins() {
        let table = ImageFormatRegistry(formats: [
            ImageFormat(identifier: "alpha", mimeTypes: ["image/x-alpha"], fileExtensions: ["alpha"]),
            ImageFormat(identifier: "beta", mimeTypes: ["image/x-beta"], fileExtensions: ["alpha", "beta"]),
        ])
        #expect(table.format(named: "alpha")?.identifier == "alpha")
        #expect(table.format(named: "image/x-beta")?.identifier == "beta")
    }

    @Test("Signatures see the head and the tail, and never read past short data")
    func sniffedBytes() {
        let short = ImageFormat.SniffedBytes([0x89, 0x50])
        #expect(short.has([0x89, 0x50]))
        #expect(!short.has([0x89, 0x50, 0x4E]))
        #expect(!short.has([0x50], at: 2))
        #expect(!short.has([0x50], at: -1))
        let long = ImageFormat.SniffedBytes(Array(repeating: UInt8(0x20), count: 1000) + Array("</svg>".utf8))
        #expect(long.head.count == ImageFormat.SniffedBytes.headLength)
        #expect(long.tail.count == ImageFormat.SniffedBytes.tailLength)
        #expect(long.tailContains("</svg>".utf8))
        #expect(!long.tailContains("<svg".utf8))
    }
}
