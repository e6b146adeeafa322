import Foundation
import PipelineCore

/// SVG through librsvg, drawn with cairo at the size asked for: a thumbnail is drawn at the
/// thumbnail's size (never drawn large and then shrunk), anything else at the document's own size
/// (its `width` and `height` at 96 DPI, or its `viewBox`). Decode only; the pixels are RGBA.
/// Register once: `ImageCodersManager.shared.add(SVGCoder())`.
///
/// Untrusted documents are safe to draw: an SVG never reaches a file or the network (librsvg is
/// given no base location, so it refuses every external image, `xi:include` and stylesheet;
/// `data:` URLs still work), and documents over `maxDocumentBytes` or with more elements than
/// `maxElements` are refused before librsvg parses them. libxml2's own limits stop entity
/// expansion bombs. librsvg 2.54 cannot stop inside a drawing, so a large one is drawn in bands of
/// rows (`SVGBands`) and stops between them when its request is cancelled, its decode time
/// (`ImageDecodeOptions.maxDecodeTime`) or `maxRenderDuration` is spent. Documents drawn whole
/// (small ones, and those with filters, masks or group opacity, which librsvg would redraw for
/// every band) are bound by the element and pixel limits.
public struct SVGCoder: ImageCoder {
    /// The largest document parsed, in bytes. Default 10 MiB: detailed maps and diagrams are a
    /// few megabytes.
    public var maxDocumentBytes: Int
    /// The most elements (start tags, counted in the bytes before parsing) a document may have.
    /// Default 100,000: real icons have tens, detailed illustrations and maps thousands to tens of
    /// thousands; librsvg itself stops at 1,000,000, which take it many seconds to draw.
    public var maxElements: Int
    /// The longest a drawing may take, checked between its bands (`SVGBands`); nil for no limit.
    /// Default 10 seconds, the service's request deadline: a logo drawn at 50 megapixels takes
    /// about one.
    public var maxRenderDuration: Duration?

    public static let defaultMaxDocumentBytes = 10 << 20
    public static let defaultMaxElements = 100_000
    public static let defaultMaxRenderDuration: Duration = .seconds(10)

    public init(
        maxDocumentBytes: Int = SVGCoder.defaultMaxDocumentBytes, maxElements: Int = SVGCoder.defaultMaxElements,
        maxRenderDuration: Duration? = SVGCoder.defaultMaxRenderDuration
    ) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxElements = maxElements
        self.maxRenderDuration = maxRenderDuration
    }

    /// Text whose first markup (after a byte-order mark and white space) is an `<svg` element,
    /// an XML declaration, a comment or an SVG doctype, judged from the first bytes alone, as every
    /// coder sniffs. (The format table's signature looks at the file's end, `</svg>`, which a
    /// prefix does not have.) An XML document that turns out not to be an SVG fails to decode.
    public func canDecode(_ data: Data) -> Bool { SVGSniffing.startsLikeSVG(data) }

    public func canDecode(format: ImageFormat) -> Bool { format == .svg }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "SVGCoder", format: .svg) }
        try checkLimits(data)
        let checkpoint = DecodeCheckpoint(options: options)
        let document = try SVGDocument(data)
        let size = try document.pixelSize()
        let target = options.targetSize(for: size)
        try options.checkPixelLimit(target)
        try checkpoint.check()
        let start = ContinuousClock.now
        let pixels = try document.render(at: target, rowsPerBand: SVGBands.rowsPerBand(for: target, document: data)) {
            try checkpoint.check()
            try checkRenderDuration(since: start)
        }
        try checkpoint.check()
        return Image(pixels, format: .svg, scale: options.scaleFactor, metadata: ImageMetadata(decodeOptions: options))
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.unencodableFormat(format, coder: "SVGCoder", format: .svg)
    }

    /// Nil: the drawn size is known only once librsvg has parsed the document, which is most of
    /// the work (a second parse for an estimate would double it), so SVG decodes are not counted
    /// in the decode memory budget. `maxElements` and `maxPixels` bound them instead.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? { nil }

    /// `maxDocumentBytes` and `maxElements`, checked on the bytes before librsvg sees them.
    func checkLimits(_ data: Data) throws {
        if data.count > maxDocumentBytes {
            throw ImagePipeError.limitExceeded(.svgDocumentBytes, value: data.count, maximum: maxDocumentBytes)
        }
        let elements = SVGElementCount.count(in: data, stoppingAfter: maxElements)
        if elements > maxElements {
            throw ImagePipeError.limitExceeded(.svgElements, value: elements, maximum: maxElements)
        }
    }

    /// `maxRenderDuration`, against the time drawing has taken since `start`.
    private func checkRenderDuration(since start: ContinuousClock.Instant) throws {
        guard let maxRenderDuration else { return }
        let elapsed = ContinuousClock.now - start
        if elapsed > maxRenderDuration {
            throw ImagePipeError.limitExceeded(.svgRenderDuration, value: Self.milliseconds(elapsed), maximum: Self.milliseconds(maxRenderDuration))
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let milliseconds = duration / .milliseconds(1)
        return milliseconds < Double(Int.max) ? Int(milliseconds) : .max
    }
}

extension ImagePipeError.Limit {
    /// Bytes of an SVG document: `SVGCoder.maxDocumentBytes`.
    public static let svgDocumentBytes = Self(name: "svgDocumentBytes", setting: "SVGCoder.maxDocumentBytes")
    /// Elements of an SVG document: `SVGCoder.maxElements`.
    public static let svgElements = Self(name: "svgElements", setting: "SVGCoder.maxElements")
    /// Milliseconds an SVG drawing took: `SVGCoder.maxRenderDuration`.
    public static let svgRenderDuration = Self(name: "svgRenderDuration", setting: "SVGCoder.maxRenderDuration")
}
