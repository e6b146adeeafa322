import CGIF
import Foundation
import PipelineCore

/// Draws GIF blocks onto a canvas and applies their disposal, keeping just enough state to
/// continue from the last block drawn: the canvas, and the pixels under that block from before it
/// was drawn when it will restore them (disposal 3). The canvas is RGBA (straight alpha), or RGB
/// when nothing in the file can be transparent, so frames need no conversion.
struct GIFCompositor: Sendable {
    let data: Data
    let index: GIFIndex
    let format: PixelFormat
    private(set) var canvas: [UInt8]
    /// For a block with disposal 3: its visible rectangle as it was before the block was drawn.
    /// Only that rectangle changes while the block shows, so only it is kept, not a second canvas.
    private var saved: Saved?

    /// Columns and rows of the screen.
    private struct Area: Sendable {
        var x: Range<Int>
        var y: Range<Int>
    }

    private struct Saved: Sendable {
        var area: Area
        var pixels: [UInt8]
    }
    /// The block the canvas shows (its disposal not yet applied), or nil when unknown.
    private var lastDrawn: Int?
    /// Nothing drawn since the canvas was zeroed: a restart need not zero it again.
    private var isClear = true

    init(data: Data, index: GIFIndex) throws {
        self.data = data
        self.index = index
        format = index.hasTransparency ? .rgba8 : .rgb8
        canvas = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: index.screen.width, height: index.screen.height, format: format))
    }

    /// The canvas showing displayed frame `frame`: continues from the last block drawn when that
    /// is at or after the frame's key block, else starts over at the key block, never at block 0.
    /// `checkpoint` is polled before each block drawn.
    mutating func render(frame: Int, checkpoint: DecodeCheckpoint) throws -> [UInt8] {
        let target = index.frames[frame].lastBlock
        let key = index.keyBlocks[target]
        let first: Int
        if let drawn = lastDrawn, drawn <= target, drawn + 1 >= key {
            if drawn == target { return canvas }
            dispose(drawn)
            first = drawn + 1
        } else {
            if !isClear { canvas.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            saved = nil
            first = key
        }
        lastDrawn = nil
        isClear = false
        for block in first...target {
            try checkpoint.check()
            if block > first { dispose(block - 1) }
            saved = index.blocks[block].disposal == 3 ? save(index.blocks[block]) : nil
            try draw(block)
        }
        lastDrawn = target
        return canvas
    }

    private mutating func dispose(_ number: Int) {
        let block = index.blocks[number]
        switch block.disposal {
        case 2:
            // Browsers and SDWebImage clear to transparent, not to the (often meaningless)
            // background colour index.
            guard let area = visibleArea(block) else { break }
            let width = index.screen.width
            canvas.withUnsafeMutableBufferPointer { pixels in
                for y in area.y { pixels.baseAddress!.advanced(by: (y * width + area.x.lowerBound) * 4).update(repeating: 0, count: area.x.count * 4) }
                // (Disposal 2 makes the file transparent, so this canvas is always RGBA.)
            }
        case 3:
            if let saved { restore(saved) }
        default:
            break
        }
        saved = nil
    }

    /// The part of the screen a block covers, nil when none.
    private func visibleArea(_ block: GIFBlock) -> Area? {
        let screen = index.screen
        let x0 = min(block.left, screen.width), x1 = min(block.left + block.width, screen.width)
        let y0 = min(block.top, screen.height), y1 = min(block.top + block.height, screen.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return Area(x: x0..<x1, y: y0..<y1)
    }

    /// The canvas pixels under `block`, row by row, for disposal 3 to put back.
    private func save(_ block: GIFBlock) -> Saved? {
        guard let area = visibleArea(block) else { return nil }
        let bytesPerPixel = format.bytesPerPixel, width = index.screen.width
        let rowBytes = area.x.count * bytesPerPixel
        var pixels: [UInt8] = []
        pixels.reserveCapacity(rowBytes * area.y.count)
        canvas.withUnsafeBufferPointer { canvas in
            for y in area.y {
                let start = (y * width + area.x.lowerBound) * bytesPerPixel
                pixels.append(contentsOf: UnsafeBufferPointer(rebasing: canvas[start..<start + rowBytes]))
            }
        }
        return Saved(area: area, pixels: pixels)
    }

    private mutating func restore(_ saved: Saved) {
        let bytesPerPixel = format.bytesPerPixel, width = index.screen.width
        let rowBytes = saved.area.x.count * bytesPerPixel
        saved.pixels.withUnsafeBufferPointer { source in
            canvas.withUnsafeMutableBufferPointer { canvas in
                for (row, y) in saved.area.y.enumerated() {
                    let start = (y * width + saved.area.x.lowerBound) * bytesPerPixel
                    canvas.baseAddress!.advanced(by: start).update(from: source.baseAddress!.advanced(by: row * rowBytes), count: rowBytes)
                }
            }
        }
    }

    /// Decodes one block by re-opening giflib on the header followed by the block's own bytes:
    /// random access at the cost of re-reading the global colour table, and no block's raster is
    /// kept after it is drawn (memory stays one canvas, not one raster per frame).
    private mutating func draw(_ number: Int) throws {
        let block = index.blocks[number]
        if block.isEmpty { return }
        let file = try GIFFile(GIFByteReader(data, segments: [0..<index.headerLength, block.descriptorOffset..<data.count]))
        let handle = file.handle
        var type = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(handle, &type) == GIF_OK, type == IMAGE_DESC_RECORD_TYPE,
              DGifGetImageDesc(handle) == GIF_OK
        else { throw file.lastError }
        let palette = Self.palette(handle.pointee.Image.ColorMap ?? handle.pointee.SColorMap, transparent: block.transparentIndex)
        let screen = index.screen
        let visibleWidth = max(0, min(block.width, screen.width - block.left))
        let interlaced = handle.pointee.Image.Interlace
        let bytesPerPixel = format.bytesPerPixel
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
                            // No transparency anywhere in the file: every index is drawn.
                            var out = pixels.baseAddress! + (y * screen.width + block.left) * 3
                            for x in 0..<visibleWidth {
                                let entry = palette.baseAddress! + Int(line[x]) &* 4
                                out[0] = entry[0]
                                out[1] = entry[1]
                                out[2] = entry[2]
                                out += 3
                            }
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

    /// 256 RGBA entries. The transparent index gets alpha 0 and leaves the canvas untouched;
    /// indices past the table's end draw opaque black, as most decoders do, so a block's
    /// opacity depends only on its transparency flag.
    private static func palette(_ map: UnsafeMutablePointer<ColorMapObject>?, transparent: Int?) -> [UInt8] {
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
