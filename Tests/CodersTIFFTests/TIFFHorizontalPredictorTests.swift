import Testing

@testable import CodersTIFF

@Suite("TIFFHorizontalPredictor")
struct TIFFHorizontalPredictorTests {
    @Test("Differenced rows of 1 to 5 samples a pixel come back as the samples they encode", arguments: 1...5)
    func undoesDifferencing(samplesPerPixel: Int) {
        var state: UInt32 = 11
        let pixels = 53
        let samples = (0..<pixels * samplesPerPixel).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        // As a writer stores them: each sample less the same sample of the pixel to its left.
        let stored = samples.indices.map { i in i < samplesPerPixel ? samples[i] : samples[i] &- samples[i - samplesPerPixel] }
        var decoded = [UInt8](repeating: 0, count: samples.count)
        stored.withUnsafeBytes { source in
            decoded.withUnsafeMutableBytes { target in
                TIFFHorizontalPredictor.undo(source.baseAddress!, into: target.baseAddress!, count: samples.count, samplesPerPixel: samplesPerPixel)
            }
        }
        #expect(decoded == samples)
    }
}
