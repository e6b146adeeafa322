import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersAVIF

/// `irot`/`imir` become the EXIF orientation that turns the stored pixels upright; pixels stay
/// as stored, like every other coder's.
struct AVIFOrientationTests {
    /// libavif's own pairs for EXIF 2-8 (`avifImageSetMetadataExif`), and equivalent pairs.
    static let cases: [(UInt8?, UInt8?, ImageOrientation)] = [
        (nil, nil, .up), (nil, 1, .upMirrored), (2, nil, .down), (nil, 0, .downMirrored),
        (1, 0, .leftMirrored), (3, nil, .right), (3, 0, .rightMirrored), (1, nil, .left),
        (2, 0, .upMirrored), (2, 1, .downMirrored), (1, 1, .rightMirrored), (3, 1, .leftMirrored), (0, nil, .up),
    ]

    @Test("irot and imir map to EXIF orientations", arguments: cases.indices)
    func mapping(_ index: Int) {
        let (rotation, mirror, expected) = Self.cases[index]
        #expect(AVIFOrientation.orientation(rotation: rotation, mirror: mirror) == expected)
    }

    @Test(
        "a file written with irot/imir reports its orientation",
        .enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools),
        arguments: [(1, nil), (3, nil), (2, nil), (nil, 1), (nil, 0), (1, 0), (3, 0)] as [(Int?, Int?)])
    func fileOrientation(_ rotation: Int?, _ mirror: Int?) throws {
        let image = try AVIFCoder().decode(try AVIFFixtures.oriented(rotation: rotation, mirror: mirror).data(), options: ImageDecodeOptions())
        #expect(image.orientation == AVIFOrientation.orientation(rotation: rotation.map(UInt8.init), mirror: mirror.map(UInt8.init)))
        #expect(image.pixelSize == ImageSize(width: 9, height: 5))
    }
}
