import Foundation
import Testing

@testable import PipelineCore

@Suite("Image values")
struct ImageTests {
    @Test("Changing a copy's format, orientation, scale or metadata leaves the original as it was; both keep the same pixels")
    func copiesAreValues() throws {
        let original = Image(try PixelBuffer(width: 4, height: 2, format: .rgba8), format: .png, orientation: .up, scale: 1)
        var copy = original
        copy.format = .jpeg
        copy.orientation = .right
        copy.scale = 2
        copy.metadata.isTransformed = true
        #expect(original.format == .png && original.orientation == .up && original.scale == 1 && !original.metadata.isTransformed)
        #expect(copy.format == .jpeg && copy.orientation == .right && copy.scale == 2 && copy.metadata.isTransformed)
        #expect(copy.box === original.box, "the content is shared, so the weak cache still finds it")
        #expect(copy.pixelSize == ImageSize(width: 4, height: 2))
    }
}
