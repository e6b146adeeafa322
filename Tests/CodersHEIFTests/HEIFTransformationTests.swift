import CodersHEIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// libheif applies `irot`/`imir` as it decodes: images come out upright with orientation 1, as
/// heif-convert writes them. heif-enc turns pixels itself instead of writing those boxes, so the
/// file here is an avifenc-made still with `irot` and `imir` relabelled as generic HEIF
/// (AV1 inside, `mif1` brands), which libheif decodes like any HEIF.
@Suite(.enabled(if: HEIFFixtures.toolsInstalled && AVIFFixtures.toolsInstalled, "needs heif-convert and avifenc (make deps)"))
struct HEIFTransformationTests {
    static func genericHEIF(_ avif: Data) -> Data {
        var bytes = [UInt8](avif)
        let brand = Array("avif".utf8), generic = Array("mif1".utf8)
        let boxEnd = min(Int(bytes[3]), bytes.count)
        for at in stride(from: 8, to: boxEnd - 3, by: 4) where Array(bytes[at..<at + 4]) == brand {
            bytes.replaceSubrange(at..<at + 4, with: generic)
        }
        return Data(bytes)
    }

    @Test("rotation and mirroring are applied; orientation is then up", arguments: [(1, 0), (3, nil), (nil, 1)] as [(Int?, Int?)])
    func transformationsApplied(_ rotation: Int?, _ mirror: Int?) throws {
        let data = Self.genericHEIF(try AVIFFixtures.oriented(rotation: rotation, mirror: mirror).data())
        let url = ToolFixtures.url("oriented-\(UUID().uuidString).heif")
        try data.write(to: url)
        let image = try HEIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.format == .heif && image.orientation == .up)
        let turned = rotation.map { $0 % 2 == 1 } ?? false
        #expect(image.pixelSize == (turned ? ImageSize(width: 5, height: 9) : ImageSize(width: 9, height: 5)))
        let reference = try ToolFixtures.reference(tool: "heif-convert", input: url)
        #expect(maxDifference(image.firstFrame.converted(to: .rgba8).bytes, reference.rgba) <= 1)
    }
}
