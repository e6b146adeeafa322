import Foundation
import ImagePipe
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

@Suite("Conformance kit finds broken plugins")
struct KitSelfTests {
    func samples() throws -> [CoderSample] {
        [CoderSample(name: "12x8.rawi", data: try RawCoder.sample(), format: RawCoder.format, size: ImageSize(width: 12, height: 8))]
    }

    @Test("A correct coder passes every coder contract")
    func correctCoder() async throws {
        let failures = await CoderConformance.failures(for: RawCoder(), samples: try samples())
        #expect(failures == [], "\(failures)")
    }

    @Test("A coder that claims to write ICC profiles but drops them fails encode.colorProfile")
    func droppedProfile() async throws {
        var options = CoderConformance.Options()
        options.colorProfile = ColorFixtures.displayP3Profile()
        let failures = await CoderConformance.failures(for: RawCoder(), samples: try samples(), options: options)
        #expect(failures.map(\.contract) == ["encode.colorProfile"])
        #expect(failures.first?.detail.contains("came back as none") == true)
    }

    @Test("A coder that claims to write EXIF and XMP but drops them fails encode.metadata")
    func droppedMetadata() async throws {
        var options = CoderConformance.Options()
        options.writesMetadata = true
        let failures = await CoderConformance.failures(for: RawCoder(), samples: try samples(), options: options)
        #expect(failures.map(\.contract) == ["encode.metadata", "encode.metadata"])
        #expect(failures.first?.detail.contains("came back as none") == true)
    }

    @Test("A coder whose canDecode decodes fails canDecode.cheap")
    func decodingSniffer() async throws {
        let contracts = Set(await CoderConformance.failures(for: DecodingSnifferCoder(), samples: try samples()).map(\.contract))
        #expect(contracts.contains("canDecode.cheap"))
    }

    @Test("A coder that hangs on truncated data fails decode.truncated within the time bound")
    func hangs() async throws {
        var options = CoderConformance.Options()
        options.timeLimit = .milliseconds(500)
        options.truncations = 2
        options.corruptions = 0
        let failures = await CoderConformance.failures(for: HangsOnTruncationCoder(), samples: try samples(), options: options)
        let hang = failures.first { $0.contract == "decode.truncated" }
        #expect(hang?.detail.contains("a hang") == true, "\(failures)")
        #expect(hang?.sample.hasPrefix("12x8.rawi") == true)
    }

    @Test("A coder that ignores limits and thumbnails fails decode.limits and decode.thumbnail")
    func limitless() async throws {
        let contracts = Set(await CoderConformance.failures(for: LimitlessCoder(), samples: try samples()).map(\.contract))
        #expect(contracts.isSuperset(of: ["decode.limits", "decode.thumbnail"]))
    }

    @Test("Wrong expectations are reported as size and pixel failures naming the sample")
    func wrongExpectations() async throws {
        var sample = try samples()[0]
        sample.size = ImageSize(width: 13, height: 8)
        sample.reference = try PixelBuffer(width: 12, height: 8, format: .rgba8, fill: .white)
        let failures = await CoderConformance.failures(for: RawCoder(), samples: [sample])
        #expect(failures.contains { $0.contract == "decode.size" && $0.sample == "12x8.rawi" })
        #expect(failures.contains { $0.contract == "decode.pixels" })
    }

    @Test("The built-in transformers pass; a constant key fails transformer.keyDistinct, an undeclared size transformer.outputSize")
    func transformers() async throws {
        let image = Image(try PixelBuffer(width: 30, height: 20, format: .rgba8, fill: ImageColor(red: 200, green: 10, blue: 10)), format: .png)
        let builtIns: [(any ImageTransformer, any ImageTransformer)] = [
            (ResizingTransformer(size: ImageSize(width: 10, height: 10)), ResizingTransformer(size: ImageSize(width: 11, height: 10))),
            (CroppingTransformer(rect: ImageRect(x: 1, y: 1, width: 5, height: 5)), CroppingTransformer(rect: ImageRect(x: 2, y: 1, width: 5, height: 5))),
            (RoundCornerTransformer(radius: 4), RoundCornerTransformer(radius: 5)),
            (RotationTransformer(degreesClockwise: 17), RotationTransformer(degreesClockwise: 23)),
            (FlippingTransformer(horizontal: true, vertical: false), FlippingTransformer(horizontal: false, vertical: true)),
            (TintTransformer(color: .black), TintTransformer(color: .white)),
            (BlurTransformer(radius: 2), BlurTransformer(radius: 3)),
            (GrayscaleTransformer(), FlippingTransformer(horizontal: true, vertical: true)),
            (PipelineTransformer([GrayscaleTransformer(), BlurTransformer(radius: 1)]), PipelineTransformer([BlurTransformer(radius: 1)])),
        ]
        for (transformer, variant) in builtIns {
            let failures = await TransformerConformance.failures(for: transformer, variants: [variant], samples: [image])
            #expect(failures == [], "\(transformer.key): \(failures)")
        }
        let broken = await TransformerConformance.failures(for: ConstantKeyTransformer(size: 4), variants: [ConstantKeyTransformer(size: 8)], samples: [image])
        #expect(broken.map(\.contract).contains("transformer.keyDistinct"))
        let undeclared = await TransformerConformance.failures(for: UndeclaredSizeTransformer(), variants: [GrayscaleTransformer()], samples: [image])
        #expect(undeclared.map(\.contract) == ["transformer.outputSize"])
    }

    @Test("A correct memory cache passes; a cache that answers with stale data fails cache.replace")
    func caches() async throws {
        var options = CacheConformance.Options()
        options.cacheTypes = [.memory]
        let good = await CacheConformance.failures(for: InMemoryImageCache(), options: options)
        #expect(good == [], "\(good)")
        let stale = await CacheConformance.failures(for: StaleCache(), options: options)
        #expect(stale.map(\.contract).contains("cache.replace"))
    }

    @Test("A cache that answers a disk-only query from memory fails cache.honoursCacheType (the built-in passes, in ConformanceTests)")
    func cacheTypeIsHonoured() async throws {
        let blind = await CacheConformance.failures(for: LevelBlindCache())
        let messages = blind.filter { $0.contract == "cache.honoursCacheType" }
        #expect(messages.count >= 2, "\(blind)")
    }
}
