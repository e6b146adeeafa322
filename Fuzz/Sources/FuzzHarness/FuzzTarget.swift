import CodersAVIF
import CodersBMP
import CodersGIF
import CodersHEIF
import CodersJPEG
import CodersJXL
import CodersPNG
import CodersSVG
import CodersTIFF
import CodersWebP
import Foundation

/// Every fuzz target, by the name `make fuzz` and the findings folders use.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case png, jpeg, webp, gif, avif, heif, tiff, bmp, jxl, svg
    case transformSpec = "transform-spec"
    case dataURL = "data-url"
    case diskCacheName = "disk-cache-name"

    /// One input. Throws when the input shows a broken promise that did not crash by itself.
    public func run(_ data: Data) throws(FuzzViolation) {
        switch self {
        case .png: try CoderFuzzing.run(data, coder: PNGCoder())
        case .jpeg: try CoderFuzzing.run(data, coder: JPEGCoder())
        case .webp: try CoderFuzzing.run(data, coder: WebPCoder())
        case .gif: try CoderFuzzing.run(data, coder: GIFCoder(), limits: .gif)
        case .avif: try CoderFuzzing.run(data, coder: AVIFCoder())
        case .heif: try CoderFuzzing.run(data, coder: HEIFCoder())
        case .tiff: try CoderFuzzing.run(data, coder: TIFFCoder())
        case .bmp: try CoderFuzzing.run(data, coder: BMPCoder(coders: CoderFuzzing.pngOnly))
        case .jxl: try CoderFuzzing.run(data, coder: JXLCoder())
        case .svg: try CoderFuzzing.run(data, coder: SVGCoder(maxElements: 2_000), limits: .svg)
        case .transformSpec: try TransformSpecFuzzing.run(data)
        case .dataURL: try DataURLFuzzing.run(data)
        case .diskCacheName: try DiskCacheNameFuzzing.run(data)
        }
    }

    /// libFuzzer's `LLVMFuzzerTestOneInput` for this target: a violation becomes a crash, so the
    /// fuzzer keeps the input.
    public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
        let data = start.map { Data(bytes: $0, count: count) } ?? Data()
        do {
            try run(data)
        } catch {
            fatalError("fuzz-\(rawValue): \(error)")
        }
        return 0
    }
}
