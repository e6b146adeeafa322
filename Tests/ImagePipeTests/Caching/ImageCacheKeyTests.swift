import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Cache key formats")
struct ImageCacheKeyTests {
    static let flip = "SDImageFlippingTransformer(1,0)"

    /// SDWebImage's `test10TransformedKeyForKey` examples, exactly.
    @Test(
        "Transformer keys go before the path extension as SDWebImage writes them",
        arguments: [
            ("image.png", "image-\(flip).png"),
            ("image", "image-\(flip)"),
            (".image", ".image-\(flip)"),
            ("image.", "image.-\(flip)"),
            ("Test/image.png", "Test/image-\(flip).png"),
            ("http://foo/image.png?foo=bar#mark", "http://foo/image-\(flip).png?foo=bar#mark"),
            ("ftp://root:password@foo.com/image.png", "ftp://root:password@foo.com/image-\(flip).png"),
        ])
    func transformed(key: String, expected: String) {
        #expect(ImageCacheKey.transformed(key, transformerKey: Self.flip) == expected)
    }

    /// Runs of slashes in the path fold into one, as NSString's path methods fold them upstream.
    @Test(
        "Keys Foundation's NSString path methods trap on get their suffix all the same",
        arguments: [
            ("a//é.png", "a/%C3%A9-\(flip).png"),
            ("a//é", "a//é-\(flip)"),
            ("a//é.png/", "a/%C3%A9-\(flip).png"),
            ("https://x.test/a//%C3%A9.png", "https://x.test/a/%C3%A9-\(flip).png"),
        ])
    func transformedTrappingKeys(key: String, expected: String) {
        #expect(ImageCacheKey.transformed(key, transformerKey: Self.flip) == expected)
    }

    @Test("Thumbnail suffixes print the box with six decimals and the aspect flag")
    func thumbnail() {
        #expect(
            ImageCacheKey.thumbnailSuffix(pixelSize: ImageSize(width: 100, height: 100), preserveAspectRatio: true)
                == "Thumbnail({100.000000,100.000000},1)")
        // In a URL path the braces are percent-encoded, as NSURLComponents does for SDWebImage.
        #expect(
            ImageCacheKey.thumbnailed("https://x.test/photo.jpg?s=1", pixelSize: ImageSize(width: 490, height: 300), preserveAspectRatio: false)
                == "https://x.test/photo-Thumbnail(%7B490.000000,300.000000%7D,0).jpg?s=1")
        #expect(
            ImageCacheKey.thumbnailed("photo", pixelSize: ImageSize(width: 490, height: 300), preserveAspectRatio: false)
                == "photo-Thumbnail({490.000000,300.000000},0)")
        #expect(
            ImageCacheKey.thumbnailed("file:///tmp/a.png", pixelSize: ImageSize(width: 1, height: 2), preserveAspectRatio: true)
                == "file:///tmp/a-Thumbnail({1.000000,2.000000},1).png")
    }

    @Test(
        "Thumbnail suffixes are what %f prints for every side, huge and negative ones included",
        arguments: [0, 1, -5, 256, 10_000_000, (1 << 53) - 1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 3, Int.max, Int.min])
    func thumbnailSuffixMatchesFormat(side: Int) {
        #expect(
            ImageCacheKey.thumbnailSuffix(pixelSize: ImageSize(width: side, height: 7), preserveAspectRatio: true)
                == String(format: "Thumbnail({%f,%f},%d)", Double(side), 7.0, 1))
    }

    @Test("The pipeline's key joins its members' keys with a dash, thumbnail first, transformer second")
    func pipelineKey() {
        struct Named: ImageTransformer {
            let key: String
            func transform(_ image: Image) throws -> Image { image }
        }
        let pipeline = PipelineTransformer([Named(key: "A(1)"), Named(key: "B(2)")])
        #expect(pipeline.key == "A(1)-B(2)")
        #expect(PipelineTransformer([]).key == "")
        let base = "https://x.test/p.png"
        let thumbnailed = ImageCacheKey.thumbnailed(base, pixelSize: ImageSize(width: 10, height: 10), preserveAspectRatio: true)
        let final = ImageCacheKey.transformed(thumbnailed, transformerKey: pipeline.key)
        #expect(final.hasSuffix("-A(1)-B(2).png"))
        #expect(final.contains("Thumbnail"))
    }

    @Test("The base key is the URL, or what the key filter makes of it")
    func baseKey() {
        let url = URL(string: "https://cdn.test/a.jpg?token=secret#x")!
        #expect(ImageCacheKey.key(for: url) == "https://cdn.test/a.jpg?token=secret#x")
        #expect(ImageCacheKey.key(for: url, filter: .removingQuery) == "https://cdn.test/a.jpg")
        #expect(ImageCacheKey.key(for: url, filter: ImageCacheKeyFilter { _ in nil }) == url.absoluteString)
    }
}
