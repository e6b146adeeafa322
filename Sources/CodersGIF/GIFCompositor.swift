import CGIF
import Foundation
import PipelineCore

/// Draws GIF blocks onto the core's `AnimationCanvas`, which applies their disposal and keeps what a
/// disposal 3 block restores. The canvas is RGBA (straight alpha), or RGB when nothing in the file
/// can be transparent, so frames need no conversion.
struct GIFCompositor: Sendable {
    let data: Data
    let index: GIFIndex
    let format: PixelFormat
    /// Made on the first render: a still thumbnail streamed from its block needs none.
    private var canvas: AnimationCanvas?

    init(data: Data, index: GIFIndex) throws {
        self.data = data
        self.index = index
        format = index.hasTransparency ? .rgba8 : .rgb8
        // The canvas's size is checked now, so a screen too large to address fails the decode at once.
        _ = try PixelBuffer.byteCount(width: index.screen.width, height: index.screen.height, format: format)
    }

    /// The canvas showing displayed frame `frame`: continues from the last block drawn when that
    /// is at or after the frame's key block, else starts over at the key block, never at block 0.
    /// `checkpoint` is polled before each block drawn.
    mutating func render(frame: Int, checkpoint: DecodeCheckpoint) throws -> [UInt8] {
        let target = index.frames[frame].lastBlock
        let (data, index) = (data, index)
        if canvas == nil { canvas = try AnimationCanvas(size: index.screen, format: format) }
        return try canvas!.render(
            target, key: index.keyBlocks[target], checkpoint: checkpoint,
            area: { Self.visibleArea(index.blocks[$0], screen: index.screen) },
            disposal: { Self.disposal(index.blocks[$0]) },
            draw: { block, pixels in try Self.draw(block, of: data, index: index, into: &pixels) })
    }

    /// Disposal 2 clears to transparent (as browsers and SDWebImage do, not to the often
    /// meaningless background colour index; it makes the file transparent, so the canvas is RGBA);
    /// 3 restores; the rest leave the block drawn.
    private static func disposal(_ block: GIFBlock) -> AnimationCanvas.Disposal {
        switch block.disposal {
        case 2: .background
        case 3: .previous
        default: .none
        }
    }

    /// The part of the screen a block covers, nil when none.
    private static func visibleArea(_ block: GIFBlock, screen: ImageSize) -> ImageRect? {
        let x0 = min(block.left, screen.width), x1 = min(block.left + block.width, screen.width)
        let y0 = min(block.top, screen.height), y1 = min(block.top + block.height, screen.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return ImageRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Decodes one block by re-opening giflib on the header followed by the block's own bytes:
    /// random access at the cost of re-reading the global colour table, and no block's raster is
    /// kept after it is drawn (memory stays one canvas, not one raster per frame).
    private static func draw(_ number: Int, of data: Data, index: GIFIndex, into canvas: inout [UInt8]) throws {
        let block = index.blocks[number]
        if block.isEmpty { return }
        let file = try openBlock(block, of: data, index: index)
        let handle = file.handle
        let palette = Self.palette(handle.pointee.Image.ColorMap ?? handle.pointee.SColorMap, transparent: block.transparentIndex)
        let screen = index.screen
        let visibleWidth = max(0, min(block.width, screen.width - block.left))
        let interlaced = handle.pointee.Image.Interlace
        let bytesPerPixel = index.hasTransparency ? 4 : 3
        var line = [UInt8](repeating: 0, count: block.width)
        try palette.withUnsafeBufferPointer { palette in
            try line.withUnsafeMutableBufferPointer { line in
                try canvas.withUnsafeMutableBufferPointer { pixels in
                    for stored in 0..<block.height {
                        guard DGifGetLine(handle, line.baseAddress, Int32(block.width)) == GIF_OK else {
                            // The rows of the block the file ends inside stand as far as they came.
                            if number == index.truncatedBlock { break }
                            throw file.lastError
                        }
                        let y = block.top + (interlaced ? Self.interlacedRow(stored, height: block.height) : stored)
                        guard y < screen.height, visibleWidth > 0 else { continue }
                        if bytesPerPixel == 3 {
                            drawOpaque(
                                line.baseAddress!, count: visibleWidth, palette: palette.baseAddress!,
                                into: pixels.baseAddress! + (y * screen.width + block.left) * 3)
                            continue
                        }
                        var out = pixels.baseAddress! + (y * screen.width + block.left) * 4
                        for x in 0..<visibleWidth {
                            let entry = palette.baseAddress! + Int(line[x]) &* 4
                            if entry[3] != 0 {
                                out[0] = entry[0]
                                out[1] = entry[1]
                                out[2] = entry[2]
                                out[3] = 255
                            }
                            out += 4
                        }
                    }
                }
            }
        }
    }

    /// giflib opened on the header followed by `block`'s own bytes, its descriptor read.
    static func openBlock(_ block: GIFBlock, of data: Data, index: GIFIndex) throws -> GIFFile {
        let file = try GIFFile(GIFByteReader(data, segments: [0..<index.headerLength, block.descriptorOffset..<data.count]))
        var type = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(file.handle, &type) == GIF_OK, type == IMAGE_DESC_RECORD_TYPE,
            DGifGetImageDesc(file.handle) == GIF_OK
        else { throw file.lastError }
        return file
    }

    /// `count` indices as their palette colours, 3 bytes a pixel: in a file without transparency
    /// every index is drawn.
    static func drawOpaque(_ line: UnsafePointer<UInt8>, count: Int, palette: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        var out = out
        for x in 0..<count {
            let entry = palette + Int(line[x]) &* 4
            out[0] = entry[0]
            out[1] = entry[1]
            out[2] = entry[2]
            out += 3
        }
    }

    /// 256 RGBA entries. The transparent index gets alpha 0 and leaves the canvas untouched;
    /// indices past the table's end draw opaque black, as most decoders do, so a block's
    /// opacity depends only on its transparency flag.
    static func palette(_ map: UnsafeMutablePointer<ColorMapObject>?, transparent: Int?) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256 * 4)
        for entry in 0..<256 { table[entry * 4 + 3] = 255 }
        if let map, let colors = map.pointee.Colors {
            for entry in 0..<min(Int(map.pointee.ColorCount), 256) {
                table[entry * 4] = colors[entry].Red
                table[entry * 4 + 1] = colors[entry].Green
                table[entry * 4 + 2] = colors[entry].Blue
            }
        }
        if let transparent, transparent < 256 { table[transparent * 4 + 3] = 0 }
        return table
    }

    /// The image row of the `stored`-th row of an interlaced block: files send every 8th row from
    /// 0, every 8th from 4, every 4th from 2, then every 2nd from 1.
    static func interlacedRow(_ stored: Int, height: Int) -> Int {
        let pass1 = (height + 7) / 8
        let pass2 = height > 4 ? (height - 4 + 7) / 8 : 0
        let pass3 = height > 2 ? (height - 2 + 3) / 4 : 0
        if stored < pass1 { return stored * 8 }
        if stored < pass1 + pass2 { return 4 + (stored - pass1) * 8 }
        if stored < pass1 + pass2 + pass3 { return 2 + (stored - pass1 - pass2) * 4 }
        return 1 + (stored - pass1 - pass2 - pass3) * 2
    }
}
