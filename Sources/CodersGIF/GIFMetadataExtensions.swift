import Foundation
import PipelineCore

/// A GIF's ICC profile and XMP packet, which GIF carries in application extensions:
/// - `ICCRGBG1012`: the profile's bytes, split into sub-blocks.
/// - `XMP DataXMP`: the packet written raw, so its own bytes act as sub-block lengths, then a
///   257-byte "magic trailer" (0x01, 0xFF, 0xFE … 0x01, 0x00) that brings a reader skipping
///   sub-blocks from anywhere in the packet to the extension's terminator.
///
/// The first extension of each kind is read; what is kept is bounded by `maxColorProfileBytes`
/// and `maxMetadataBytes` while reading, so a huge extension is counted, never copied.
struct GIFMetadataReader {
    enum Kind { case icc, xmp }

    static let iccIdentifier = Array("ICCRGBG1012".utf8)
    static let xmpIdentifier = Array("XMP DataXMP".utf8)
    static let xmpTrailer: [UInt8] = [0x01] + (0...255).reversed().map { UInt8($0) }

    private let options: ImageDecodeOptions
    private var current: Kind?
    private var bytes: [UInt8] = []
    private var total = 0
    private(set) var colorProfile: ImageColorProfile?
    private(set) var xmp: Data?
    private(set) var warnings: [ImageDecodeWarning] = []
    /// An XMP packet was left out for its size.
    private(set) var leftOutMetadata = false
    private var seen: Set<Kind> = []

    init(options: ImageDecodeOptions) { self.options = options }

    /// Starts collecting when `identifier` (the application block's 11 bytes) names an extension
    /// of a kind not read yet; true when it does.
    mutating func begin(application identifier: UnsafeBufferPointer<UInt8>) -> Bool {
        let kind: Kind? = identifier.elementsEqual(Self.iccIdentifier) ? .icc : identifier.elementsEqual(Self.xmpIdentifier) ? .xmp : nil
        guard let kind, !seen.contains(kind) else { return false }
        seen.insert(kind)
        (current, bytes, total) = (kind, [], 0)
        return true
    }

    /// One sub-block as giflib hands it out: its length byte, then its bytes.
    mutating func add(subBlock: UnsafePointer<UInt8>) {
        guard let current else { return }
        let length = Int(subBlock[0])
        // XMP's raw bytes include the length bytes; a profile's are only the data.
        let (start, count) = current == .xmp ? (0, length + 1) : (1, length)
        total += count
        if total <= limit(for: current) { bytes.append(contentsOf: UnsafeBufferPointer(start: subBlock + start, count: count)) }
    }

    /// Ends the extension being collected: keeps it, or drops it with a warning over its limit.
    mutating func end() {
        guard let kind = current else { return }
        current = nil
        switch kind {
        case .icc:
            if let warning = options.colorProfileWarning(bytes: total, format: "GIF") {
                warnings.append(warning)
            } else if !bytes.isEmpty {
                colorProfile = .icc(Data(bytes))
            }
        case .xmp:
            let trailer = Self.xmpTrailer.count
            let size = total >= trailer ? total - trailer : total
            if let warning = options.metadataWarning(bytes: size, kind: "XMP", format: "GIF") {
                warnings.append(warning)
                leftOutMetadata = true
            } else if bytes.count >= trailer, bytes.suffix(trailer).elementsEqual(Self.xmpTrailer) {
                if bytes.count > trailer { xmp = Data(bytes.dropLast(trailer)) }
            } else if !bytes.isEmpty {
                // A writer that left the trailer out: the packet is everything read.
                xmp = Data(bytes)
            }
        }
        bytes = []
    }

    private func limit(for kind: Kind) -> Int {
        switch kind {
        case .icc: options.maxColorProfileBytes
        case .xmp: options.maxMetadataBytes + Self.xmpTrailer.count
        }
    }
}

/// The extensions `GIFMetadataReader` reads, as (identifier, sub-blocks) for the encoder to write.
enum GIFMetadataWriter {
    static func extensions(profile: Data?, xmp: Data?) -> [(identifier: [UInt8], subBlocks: [[UInt8]])] {
        var extensions: [(identifier: [UInt8], subBlocks: [[UInt8]])] = []
        if let profile, !profile.isEmpty {
            let bytes = [UInt8](profile)
            extensions.append(
                (
                    GIFMetadataReader.iccIdentifier,
                    stride(from: 0, to: bytes.count, by: 255).map {
                        Array(bytes[$0..<min($0 + 255, bytes.count)])
                    }
                ))
        }
        if let xmp, let subBlocks = rawSubBlocks(xmp) {
            extensions.append((GIFMetadataReader.xmpIdentifier, subBlocks))
        }
        return extensions
    }

    /// The packet and the magic trailer cut where a reader sees sub-block boundaries, so writing
    /// each (length byte, bytes) reproduces them raw. Nil for a packet holding a NUL byte where a
    /// length would fall (it would end the extension early): such a packet is not written.
    static func rawSubBlocks(_ xmp: Data) -> [[UInt8]]? {
        let raw = [UInt8](xmp) + GIFMetadataReader.xmpTrailer
        var subBlocks: [[UInt8]] = []
        var position = 0
        while position < raw.count {
            let length = Int(raw[position])
            guard length > 0, position + 1 + length <= raw.count else { return nil }
            subBlocks.append(Array(raw[position + 1...position + length]))
            position += 1 + length
        }
        return subBlocks
    }
}
