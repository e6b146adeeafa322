import Foundation
import ImagePipe
import Testing

@testable import PipelineCore

// A key a plugin declares for itself, the way the docs tell plugin authors to.
extension ImageContext.Key where Value == Int {
    static var testPluginEffort: Self { .init("testplugin.effort") }
}

struct Flip: ImageTransformer {
    var key: String { "Flip" }
    func transform(_ image: Image) throws -> Image { image }
}

@Suite("Typed context")
struct ImageContextTests {
    @Test("Values come back with the type their key declares")
    func setAndGet() {
        var context = ImageContext()
        #expect(context.isEmpty)
        context[.thumbnailPixelSize] = ImageSize(width: 100, height: 100)
        context[.preserveAspectRatio] = false
        context[.queryCacheType] = .disk
        context[.imageTransformer] = Flip()
        context[.scaleDownLimitBytes] = 1024
        let size: ImageSize? = context[.thumbnailPixelSize]
        #expect(size == ImageSize(width: 100, height: 100))
        #expect(context[.preserveAspectRatio] == false)
        #expect(context[.queryCacheType] == .disk)
        #expect(context[.storeCacheType] == nil)
        #expect(context[.imageTransformer]?.key == "Flip")
        #expect(context[.scaleDownLimitBytes] == 1024)
        #expect(context.keyNames == ["imageTransformer", "preserveAspectRatio", "queryCacheType", "scaleDownLimitBytes", "thumbnailPixelSize"])
    }

    @Test("Setting a value again overrides it, and nil removes it")
    func overrideAndRemove() {
        var context = ImageContext()
        context[.queryCacheType] = .disk
        context[.queryCacheType] = .memory
        #expect(context[.queryCacheType] == .memory)
        context[.queryCacheType] = nil
        #expect(context[.queryCacheType] == nil)
        #expect(!context.contains(.queryCacheType))
        let copy = context.with(.testLabel, "avatar")
        #expect(copy[.testLabel] == "avatar")
        #expect(context[.testLabel] == nil, "with(_:_:) copies; the original is unchanged")
    }

    @Test("A plugin's own key works like the built-in ones")
    func pluginKey() {
        var context = ImageContext()
        context[.testPluginEffort] = 6
        #expect(context[.testPluginEffort] == 6)
        #expect(context.contains(.testPluginEffort))
        // Same name, other type: never a wrong-typed value.
        #expect(context[ImageContext.Key<String>("testplugin.effort")] == nil)
    }

    @Test("A value under a key that prevents coalescing keeps its load apart, also after filling gaps")
    func preventsCoalescing() {
        let closureKey = ImageContext.Key<Int>("testplugin.closure", preventsCoalescing: true)
        var context = ImageContext()
        context[.testPluginEffort] = 6
        #expect(!context.preventsCoalescing, "ordinary values compare, so loads may share")
        context[closureKey] = 1
        #expect(context.preventsCoalescing)
        #expect(ImageContext().fillingGaps(from: context).preventsCoalescing)
        context[closureKey] = nil
        #expect(!context.preventsCoalescing)
        #expect(ImageContext().with(.loaderCachedImage, nil).preventsCoalescing == false)
    }

    @Test("Filling gaps keeps the caller's values and adds the manager's where missing")
    func fillingGaps() {
        var caller = ImageContext()
        caller[.imageTransformer] = NoImageTransformer()
        var manager = ImageContext()
        manager[.imageTransformer] = Flip()
        manager[.cacheKeyFilter] = .removingQuery
        let merged = caller.fillingGaps(from: manager)
        #expect(merged[.imageTransformer] is NoImageTransformer)
        #expect(merged[.cacheKeyFilter] != nil)
    }

    @Test("Decode options come from the context, the flags and the cache key as SDWebImage derives them")
    func decodeOptionsFromContext() {
        var base = ImageDecodeOptions()
        base.maxPixels = 5000
        var context = ImageContext()
        context[.decodeOptions] = base
        context[.thumbnailPixelSize] = ImageSize(width: 64, height: 32)
        context[.preserveAspectRatio] = false
        var options = ImageDecodeOptions(options: [.decodeFirstFrameOnly], context: context, cacheKey: "https://x.test/a/icon@2x.png?v=1")
        #expect(options.maxPixels == 5000, "fields the context does not name come from .decodeOptions")
        #expect(options.firstFrameOnly)
        #expect(options.thumbnailPixelSize == ImageSize(width: 64, height: 32))
        #expect(!options.preserveAspectRatio)
        #expect(options.scaleFactor == 2)
        #expect(options.fileExtensionHint == "png")
        #expect(options.scaleDownLimitBytes == nil)

        context[.scaleFactor] = 3
        options = ImageDecodeOptions(options: [.scaleDownLargeImages], context: context, cacheKey: "b@2x.png")
        #expect(options.scaleFactor == 3, "a context scale of at least 1 wins over the key")
        #expect(options.scaleDownLimitBytes == ImageSizeMath.defaultScaleDownLimitBytes)
        context[.scaleDownLimitBytes] = 4096
        options = ImageDecodeOptions(options: [.scaleDownLargeImages], context: context)
        #expect(options.scaleDownLimitBytes == 4096)
        #expect(ImageDecodeOptions.scaleFactor(fromKey: "https://x.test/img@3x.jpg") == 3)
        #expect(ImageDecodeOptions.scaleFactor(fromKey: "https://x.test/img.jpg") == 1)
    }

    @Test("Coder extras are typed, hashable, and part of decode options' equality")
    func codingExtras() {
        var a = ImageDecodeOptions()
        var b = ImageDecodeOptions()
        #expect(a == b)
        a.extras[ImageCodingExtras.Key<Int>("test.level")] = 9
        #expect(a != b)
        b.extras[ImageCodingExtras.Key<Int>("test.level")] = 9
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a.extras[ImageCodingExtras.Key<Int>("test.level")] == 9)
        #expect(a.extras[ImageCodingExtras.Key<String>("test.level")] == nil)
    }
}

@Suite("Options")
struct ImageOptionsTests {
    @Test("Flags keep SDWebImage's bit numbers")
    func bits() {
        #expect(ImageOptions.retryFailed.rawValue == 1 << 0)
        #expect(ImageOptions.refreshCached.rawValue == 1 << 3)
        #expect(ImageOptions.scaleDownLargeImages.rawValue == 1 << 11)
        #expect(ImageOptions.fromCacheOnly.rawValue == 1 << 15)
        #expect(ImageOptions.decodeFirstFrameOnly.rawValue == 1 << 19)
        #expect(ImageOptions.avoidAutoCancelImage.rawValue == 1 << 24)
    }

    @Test("Every flag has a distinct bit and a name the command line accepts")
    func names() {
        let all = ImageOptions.named
        #expect(Set(all.map(\.option.rawValue)).count == all.count)
        #expect(Set(all.map(\.name)).count == all.count)
        for (name, option) in all { #expect(ImageOptions(name: name) == option) }
        #expect(ImageOptions(name: "RETRYFAILED") == .retryFailed)
        #expect(ImageOptions(name: "noSuchOption") == nil)
        let set: ImageOptions = [.fromCacheOnly, .retryFailed]
        #expect(set.names == ["retryFailed", "fromCacheOnly"])
        #expect(ImageLoadPriority(options: [.lowPriority]) == .low)
        #expect(ImageLoadPriority(options: [.highPriority, .lowPriority]) == .high)
        #expect(ImageLoadPriority(options: []) == .normal)
    }
}

extension ImageContext.Key where Value == String {
    /// A key of the tests' own, as a plugin declares one.
    static var testLabel: Self { .init("testLabel") }
}
