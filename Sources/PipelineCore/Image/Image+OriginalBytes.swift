import Foundation

extension Image {
    /// Whether `data`, the bytes this image was decoded from, may be written out as its encoding in
    /// `format` instead of encoding it: only when they hold this picture and nothing more. So
    /// `format` is the image's and the bytes' own, the pixels are as decoded (upright, complete, not
    /// a thumbnail, not transformed, not converted from the file's colour profile), and the file
    /// carries no metadata the image does not (`ImageMetadata.removedMetadata`). The one place the
    /// CLI decides between the loaded bytes and an encode; API users holding `ImageResult.data`
    /// ask the same.
    package func isRepresented(by data: Data, as format: ImageFormat) -> Bool {
        self.format == format && orientation == .up && !isThumbnail && !metadata.isTransformed
            && !metadata.isIncremental && !metadata.removedMetadata && ImageFormat.detect(in: data) == format
    }
}
