import Foundation
import PipelineCore

extension CoderConformance {
    /// A little-endian TIFF structure: IFD0 with Orientation 1 and a Copyright tag.
    static let kitExif: Data = {
        let copyright = Array("(c) PipelineConformance".utf8) + [0]
        let valuesAt = 8 + 2 + 2 * 12 + 4
        var bytes: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 2, 0]
        bytes += [0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0]
        bytes += [0x98, 0x82, 2, 0, UInt8(copyright.count), 0, 0, 0, UInt8(valuesAt), 0, 0, 0]
        return Data(bytes + [0, 0, 0, 0] + copyright)
    }()

    static let kitXMP = Data(
        """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta><?xpacket end="w"?>
        """.utf8)

    static func checkMetadata(_ coder: some ImageCoder, _ sample: CoderSample, _ image: Image, _ options: Options, _ log: inout FailureLog) async {
        guard options.writesMetadata, coder.canEncode(to: sample.format), !image.isAnimated else { return }
        var tagged = image
        tagged.orientation = .up
        (tagged.metadata.exif, tagged.metadata.xmp) = (kitExif, kitXMP)
        let outcome = await TimeBound.run(options.timeLimit) { [tagged] () -> Image in
            let data = try coder.encode(tagged, as: sample.format, options: ImageEncodeOptions())
            return try coder.decode(data, options: ImageDecodeOptions())
        }
        guard case .returned(let decoded) = outcome else {
            log.fail("encode.metadata", sample.name, "encode → decode of the image with EXIF and XMP failed: \(outcome)")
            return
        }
        log.expect(
            decoded.metadata.exif == kitExif, "encode.metadata", sample.name,
            "the \(kitExif.count)-byte EXIF came back as \(decoded.metadata.exif.map { "\($0.count) other bytes" } ?? "none")")
        log.expect(
            decoded.metadata.xmp == kitXMP, "encode.metadata", sample.name,
            "the \(kitXMP.count)-byte XMP came back as \(decoded.metadata.xmp.map { "\($0.count) other bytes" } ?? "none")")
    }
}
