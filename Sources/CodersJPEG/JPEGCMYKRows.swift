import PipelineCore

/// How libjpeg's CMYK rows become RGB rows: through the colour profile's converter, else naively
/// (`JPEGDecodePlan.convertCMYK`). The full decode and the row source convert a strip at a time.
struct JPEGCMYKRows {
    let inverted: Bool
    let converter: (any CMYKRowConverter)?

    /// `pixels` CMYK pixels at `cmyk`, written as RGB at `rgb`.
    func convert(_ cmyk: UnsafePointer<UInt8>, into rgb: UnsafeMutablePointer<UInt8>, pixels: Int) {
        if let converter {
            converter.convert(UnsafeBufferPointer(start: cmyk, count: pixels * 4), into: UnsafeMutableBufferPointer(start: rgb, count: pixels * 3))
        } else {
            JPEGDecodePlan.convertCMYK(cmyk, to: rgb, pixels: pixels, inverted: inverted)
        }
    }
}
