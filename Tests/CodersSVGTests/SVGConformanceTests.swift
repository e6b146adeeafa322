import CodersSVG
import Foundation
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

@Suite(.enabled(if: SVGFixtures.toolInstalled, SVGFixtures.missingTool), .dedicatedThreads)
struct SVGConformanceTests {
    @Test("SVGCoder keeps the kit's coder contracts (decode only)", arguments: SVGFixtures.samples)
    func conformance(_ fixture: SVGFixtures.Sample) async throws {
        let reference = try SVGFixtures.reference(fixture)
        let sample = CoderSample(
            name: fixture.name, data: fixture.data, format: .svg, size: fixture.size,
            reference: try PixelBuffer(width: reference.width, height: reference.height, format: .rgba8, bytes: reference.rgba), tolerance: 1)
        await CoderConformance.check(SVGCoder(), samples: [sample])
    }
}
