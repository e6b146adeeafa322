import PipelineCore

/// How a large still is cut into the equal cells of an AVIF `grid` image (HEIF, ISO/IEC 23008-12
/// §6.6.2.3): `columns` × `rows` cells of `cell` pixels whose last column and row reach past the
/// image and are cropped by the grid's output size. Each cell is its own AV1 image, so an encode
/// can stop between cells: libavif 0.11 has no hook to stop inside one.
///
/// The rules a reader checks (MIAF, ISO/IEC 23000-22 §7.3.11.4.2, as libavif checks them): cells
/// at least 64 pixels a side, the last column and row not empty, and with 4:2:0 chroma even cell
/// and output sizes. At most 256 columns and rows (the box's 8-bit fields) and `maxCells` cells.
struct AVIFGridLayout: Equatable {
    let size: ImageSize
    let cell: ImageSize
    let columns: Int
    let rows: Int

    /// Cells the grid holds at most, so that colour and alpha cells and the grids keep 16-bit IDs.
    static let maxCells = 16_000
    static let minimumCellSide = 64

    var cellCount: Int { columns * rows }

    /// The layout for an image of `size` cut into cells of about `cellSide` pixels, or nil when it
    /// is encoded as one image: `cellSide` is 0, or the image has at most `minimumPixels` pixels or
    /// fits one cell. Cells share the image evenly (a 5000-pixel row in 512-pixel cells gives ten
    /// 500-pixel cells, not 120 pixels of padding), rounded up to even sizes; they grow past
    /// `cellSide` only to stay within the column, row and cell counts.
    static func layout(for size: ImageSize, cellSide: Int, minimumPixels: Int) -> AVIFGridLayout? {
        guard cellSide > 0, size.width > 0, size.height > 0 else { return nil }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard overflow || pixels > max(minimumPixels, 0) else { return nil }
        var side = max(evenCeiling(min(cellSide, 1 << 20)), minimumCellSide)
        // Wider cells until the counts fit; each doubling at least halves the columns and rows.
        while ceilingDivision(size.width, side) > 256 || ceilingDivision(size.height, side) > 256
            || ceilingDivision(size.width, side) * ceilingDivision(size.height, side) > maxCells
        {
            side *= 2
        }
        guard size.width > side || size.height > side else { return nil }
        let columns = ceilingDivision(size.width, side), rows = ceilingDivision(size.height, side)
        let cell = ImageSize(width: spread(size.width, over: columns, side: side), height: spread(size.height, over: rows, side: side))
        return AVIFGridLayout(size: size, cell: cell, columns: columns, rows: rows)
    }

    /// The cell length that shares `length` evenly over `count` cells, even and at least 64, or
    /// `side` when that one would leave the last cell empty.
    private static func spread(_ length: Int, over count: Int, side: Int) -> Int {
        let even = max(evenCeiling(ceilingDivision(length, count)), minimumCellSide)
        return even * (count - 1) < length && even * count >= length ? even : side
    }

    /// The region of the image cell (`column`, `row`) covers; cells in the last column and row
    /// are cut to the image (the rest of the cell repeats its edge pixels).
    func region(column: Int, row: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let x = column * cell.width, y = row * cell.height
        return (x, y, min(cell.width, size.width - x), min(cell.height, size.height - y))
    }

    /// The `grid` item's payload: version 0, 32-bit sizes when the output needs them, rows and
    /// columns minus one, the output size.
    var payload: [UInt8] {
        let wide = size.width > 0xFFFF || size.height > 0xFFFF
        let width = wide ? 4 : 2
        return [0, wide ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)] + bigEndian(size.width, width) + bigEndian(size.height, width)
    }

    private static func ceilingDivision(_ value: Int, _ divisor: Int) -> Int { (value + divisor - 1) / divisor }
    private static func evenCeiling(_ value: Int) -> Int { value + (value & 1) }
}
