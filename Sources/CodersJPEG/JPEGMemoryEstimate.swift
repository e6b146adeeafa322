import PipelineCore

extension JPEGHeaderScan.Frame {
    /// Bytes libjpeg holds to decode this frame, besides the output pixels. A progressive file (or
    /// any file read scan by scan, `buffersAllScans`) keeps every 8x8 block of every component as
    /// 64 two-byte coefficients until the last scan, so the working set is the whole image's
    /// coefficients: about 3 bytes a pixel at 4:2:0, 6 at 4:4:4, 8 for CMYK. A sequential file
    /// needs only one row of blocks at a time. Row buffers for sampling and colour conversion are
    /// added either way. Nil when the header lacks the components or the size overflows.
    func decoderMemoryEstimate(buffersAllScans: Bool = false) -> Int? {
        guard !components.isEmpty, !size.isEmpty,
            let maxH = components.map(\.horizontal).max(), let maxV = components.map(\.vertical).max(),
            maxH > 0, maxV > 0
        else { return nil }
        var total = 0
        for component in components {
            guard component.horizontal > 0, component.vertical > 0 else { return nil }
            // libjpeg's per-component size in blocks, rounded up to whole MCUs.
            let width = Self.roundUp(Self.blocks(size.width * component.horizontal, maxH), to: component.horizontal)
            let height = Self.roundUp(Self.blocks(size.height * component.vertical, maxV), to: component.vertical)
            let rows = buffersAllScans || isProgressive ? height : 2 * component.vertical
            let (blocks, overflow) = width.multipliedReportingOverflow(by: rows)
            guard !overflow else { return nil }
            let (bytes, overflow2) = blocks.multipliedReportingOverflow(by: 64 * 2)
            guard !overflow2 else { return nil }
            total = total.addingReportingOverflow(bytes).overflow ? Int.max : total + bytes
        }
        // Sample rows of one MCU row per component (two for context), upsampled and converted.
        let rowBuffers = size.width.multipliedReportingOverflow(by: 8 * maxV * components.count * 4)
        guard !rowBuffers.overflow, !total.addingReportingOverflow(rowBuffers.partialValue).overflow else { return nil }
        return total + rowBuffers.partialValue
    }

    /// ceil(samples / (8 * max)), as libjpeg sizes a component's blocks.
    private static func blocks(_ scaledSamples: Int, _ maxFactor: Int) -> Int {
        let samples = (scaledSamples + maxFactor - 1) / maxFactor
        return (samples + 7) / 8
    }

    private static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}
