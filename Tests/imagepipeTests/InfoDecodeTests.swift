import CodersPNG
import Foundation
import ImagePipe
import PipelineCore
import Testing

@testable import imagepipe

@Suite("imagepipe info decodes within the decode memory budget")
struct InfoDecodeTests {
    @Test("info's decode reserves the coder's estimate: a budget below it refuses the image naming DecodeMemoryBudget.limitBytes")
    func decodeReservesEstimate() async throws {
        let coder = PNGCoder()
        let data = try coder.encode(Image(try PixelBuffer(width: 100, height: 80, format: .rgba8, fill: .black)), as: .png, options: ImageEncodeOptions())
        let estimate = try #require(coder.decodeEstimate(for: data, options: ImageDecodeOptions()))
        let tight = ImageCodersManager(coders: [coder], decodeMemoryBudget: DecodeMemoryBudget(limitBytes: estimate.bytes - 1))
        let error = await #expect(throws: ImagePipeError.self) { try await InfoCommand.decode(data, coders: tight) }
        #expect(error == .limitExceeded(.decodeMemoryBudget, value: estimate.bytes, maximum: estimate.bytes - 1))
        #expect(error?.description.contains("DecodeMemoryBudget.limitBytes") == true)
        let roomy = ImageCodersManager(coders: [coder], decodeMemoryBudget: DecodeMemoryBudget(limitBytes: estimate.bytes))
        #expect(try await InfoCommand.decode(data, coders: roomy).pixelSize == ImageSize(width: 100, height: 80))
    }
}
