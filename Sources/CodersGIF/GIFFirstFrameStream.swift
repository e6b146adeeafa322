import CGIF
import Foundation
import PipelineCore

extension GIFCompositor {
    /// The thumbnail of a file's one and only block, its rows resampled as giflib decodes them
    /// (`RowStreamResampler`): no canvas is filled and read back. Only for the case where the
    /// canvas would add nothing: an opaque (RGB) file whose single block covers the screen
    /// exactly, arrives whole and in order; nil otherwise (the caller composites as usual). The
    /// pixels equal the composited canvas resampled to `target`.
    func streamedOnlyBlock(to target: ImageSize, checkpoint: DecodeCheckpoint) throws -> PixelBuffer? {
        let screen = index.screen
        guard index.blocks.count == 1, format == .rgb8, index.truncatedBlock == nil else { return nil }
        let block = index.blocks[0]
        guard block.left == 0, block.top == 0, block.width == screen.width, block.height == screen.height,
            let stream = RowStreamResampler(source: screen, format: .rgb8, target: target, filter: .lanczos3, rowsPerFill: 16)
        else { return nil }
        try checkpoint.check()
        let file = try Self.openBlock(block, of: data, index: index)
        let handle = file.handle
        guard !handle.pointee.Image.Interlace else { return nil }
        let palette = Self.palette(handle.pointee.Image.ColorMap ?? handle.pointee.SColorMap, transparent: nil)
        let width = screen.width
        var line = [UInt8](repeating: 0, count: width)
        try palette.withUnsafeBufferPointer { palette in
            try line.withUnsafeMutableBufferPointer { line in
                while stream.rowsLeft > 0 {
                    try stream.fill { rows, count in
                        for row in 0..<count {
                            guard DGifGetLine(handle, line.baseAddress, Int32(width)) == GIF_OK else { throw file.lastError }
                            Self.drawOpaque(line.baseAddress!, count: width, palette: palette.baseAddress!, into: rows[row]!)
                        }
                        return count
                    }
                }
            }
        }
        return stream.finish()
    }
}
