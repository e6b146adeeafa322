import Foundation
import PAMCoder
import PipelineConformance
import PipelineCore

/// PNM files built in code (an example package carries no fixtures), each with the pixels it must
/// decode to, so the kit checks pixels as well as sizes.
enum PNMSamples {
    /// A 23x17 gradient: odd sizes catch row-stride mistakes; every channel varies.
    static func pixels(_ format: PixelFormat, width: Int = 23, height: Int = 17) -> PixelBuffer {
        var rgba: [UInt8] = []
        for y in 0..<height { for x in 0..<width { rgba += [UInt8(x * 11), UInt8(y * 15), UInt8((x * y) % 256), UInt8(255 - x * 5)] } }
        return try! PixelBuffer(width: width, height: height, format: .rgba8, bytes: rgba).converted(to: format)
    }

    static func sample(_ name: String, header: String, _ buffer: PixelBuffer) -> CoderSample {
        CoderSample(name: name, data: Data(header.utf8) + Data(buffer.bytes), format: .pnm, size: buffer.size, reference: buffer)
    }

    static func all() -> [CoderSample] {
        let gray = pixels(.gray8), rgb = pixels(.rgb8), grayAlpha = pixels(.grayAlpha8), rgba = pixels(.rgba8)
        // maxval 15: samples 0…15 stand for 0…255 (x17).
        let low = try! PixelBuffer(width: 4, height: 2, format: .gray8, bytes: [0, 5, 10, 15, 15, 10, 5, 0])
        let lowExpected = try! PixelBuffer(width: 4, height: 2, format: .gray8, bytes: low.bytes.map { $0 * 17 })
        return [
            sample("P5 gray", header: "P5\n23 17\n255\n", gray),
            sample("P6 rgb with comments", header: "P6 # made in code\n# width and height:\n23\t17\n255\r", rgb),
            sample("P7 GRAYSCALE_ALPHA", header: "P7\nWIDTH 23\nHEIGHT 17\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n", grayAlpha),
            sample("P7 RGB_ALPHA", header: "P7\n# a comment line\nWIDTH 23\nHEIGHT 17\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", rgba),
            sample("P7 RGB without TUPLTYPE", header: "P7\nWIDTH 23\nHEIGHT 17\nDEPTH 3\nMAXVAL 255\nENDHDR\n", rgb),
            CoderSample(
                name: "P5 maxval 15", data: Data("P5 4 2 15\n".utf8) + Data(low.bytes), format: .pnm,
                size: low.size, reference: lowExpected),
        ]
    }
}
