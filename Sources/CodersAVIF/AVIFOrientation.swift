import CAVIF
import PipelineCore

/// HEIF's `irot` (anti-clockwise quarter turns) and `imir` (0: top and bottom exchanged, 1: left
/// and right) as the EXIF orientation that shows the stored pixels upright. HEIF applies `irot`
/// before `imir`; the EXIF inside an AVIF is informative only, so these boxes decide.
enum AVIFOrientation {
    /// `[angle][mirror]`, mirror index 0 for none, 1 for mode 0, 2 for mode 1. libavif writes the
    /// same pairs for EXIF orientations 2-8 (`avifImageSetMetadataExif`).
    private static let table: [[ImageOrientation]] = [
        [.up, .downMirrored, .upMirrored],
        [.left, .leftMirrored, .rightMirrored],
        [.down, .upMirrored, .downMirrored],
        [.right, .rightMirrored, .leftMirrored],
    ]

    static func orientation(rotation angle: UInt8?, mirror mode: UInt8?) -> ImageOrientation {
        let turns = Int(angle ?? 0) & 3
        let mirror = mode.map { $0 == 0 ? 1 : 2 } ?? 0
        return table[turns][mirror]
    }

    static func orientation(of image: avifImage) -> ImageOrientation {
        let flags = image.transformFlags
        let rotation = flags & avifTransformFlags(AVIF_TRANSFORM_IROT.rawValue) != 0 ? image.irot.angle : nil
        let mirror = flags & avifTransformFlags(AVIF_TRANSFORM_IMIR.rawValue) != 0 ? image.imir.mode : nil
        return orientation(rotation: rotation, mirror: mirror)
    }
}
