import PipelineCore

/// One AVIF file whose primary image is a `grid` of the cells libavif encoded one by one, laid
/// out as libavif 0.11 lays out the grids it writes itself (`avifEncoderAddImageGrid`):
///
/// - `ftyp` and `hdlr` as the first cell's file has them (an AVIF profile brand is dropped when
///   the grid's size exceeds what the profile allows);
/// - item 1 the colour `grid` (its `ispe`, and the cells' `pixi` and `colr`); items 2… the cells,
///   hidden, in `dimg` order, each with its `ispe`, `pixi`, essential `av1C` and `colr`;
/// - with alpha, an alpha grid (`auxl` to the colour grid, the `auxC` alpha URN) over the alpha
///   cells; then the first cell's EXIF and XMP items, `cdsc` to the colour grid;
/// - equal properties stored once in `ipco`; the grid description and identical cells stored once
///   in `mdat`.
///
/// Items are listed in `iloc` and `iinf` in `dimg` order, so libavif 0.11 places the cells as
/// every other reader does (no rewrite in `AVIFFileRewrite`).
enum AVIFGridWriter {
    /// The file of `colour` cells (and as many `alpha` cells) in `layout`'s order, with `fileType`
    /// and `handler` (the first cell's boxes) and `metadata` items about the whole image.
    static func write(
        fileType: [UInt8], handler: [UInt8], colour: [AVIFCellFile.Item], alpha: [AVIFCellFile.Item]?, metadata: [AVIFCellFile.Item],
        layout: AVIFGridLayout
    ) throws(ImagePipeError) -> [UInt8] {
        guard let first = colour.first, colour.count == layout.cellCount, colour.count <= AVIFGridLayout.maxCells, alpha.map({ $0.count == colour.count }) ?? true
        else { throw .encodingFailed(reason: "AVIF grid: \(colour.count) cells for a \(layout.columns)x\(layout.rows) grid") }
        var plan = Plan()
        let gridData = plan.data(layout.payload, shared: false)
        let gridSize = ispe(layout.size)
        let grid = plan.add(colourOf: first, type: "grid", data: gridData, size: gridSize, hidden: false)
        var colourCells: [Int] = []
        for cell in colour {
            let data = plan.data(cell.payload, shared: true)
            colourCells.append(plan.add(cell, data: data))
        }
        plan.references.append(("dimg", grid, colourCells))
        if let alpha, let model = alpha.first {
            let alphaGrid = plan.add(colourOf: model, type: "grid", data: gridData, size: gridSize, hidden: false)
            var alphaCells: [Int] = []
            for cell in alpha {
                let data = plan.data(cell.payload, shared: true)
                alphaCells.append(plan.add(cell, data: data))
            }
            plan.references.append(("dimg", alphaGrid, alphaCells))
            plan.references.append(("auxl", alphaGrid, [grid]))
        }
        for item in metadata {
            let data = plan.data(item.payload, shared: false)
            let id = plan.add(item, data: data, hidden: item.infoFlags.last.map { $0 & 1 == 1 } ?? false)
            plan.references.append(("cdsc", id, [grid]))
        }
        let fileType = profileChecked(fileType, size: layout.size)
        // Offsets in `iloc` have a fixed width: the box's size does not depend on them.
        let metaSize = try plan.meta(handler: handler, dataStart: 0).count
        let dataStart = fileType.count + metaSize + 8
        let meta = try plan.meta(handler: handler, dataStart: dataStart)
        guard fits(plan.mdat.count + 8, 4), fits(dataStart + plan.mdat.count, 4) else {
            throw .encodingFailed(reason: "AVIF grid: \(plan.mdat.count) bytes of image data exceed 4 GiB")
        }
        return fileType + meta + bigEndian(plan.mdat.count + 8, 4) + Array("mdat".utf8) + plan.mdat
    }

    /// An `ispe` box: version and flags 0, width, height.
    static func ispe(_ size: ImageSize) -> AVIFCellFile.Property {
        AVIFCellFile.Property(box: AVIFBox.make("ispe", [0, 0, 0, 0] + bigEndian(size.width, 4) + bigEndian(size.height, 4)), essential: false)
    }

    /// `ftyp` without the AVIF profile brand the grid's size exceeds: Baseline (`MA1B`) allows
    /// 8192×4352 and 8,912,896 pixels, Advanced (`MA1A`) 16384×8704 and 35,651,584 (AV1 levels 5.1
    /// and 6.0, which the AVIF profiles also apply to a grid's output).
    static func profileChecked(_ ftyp: [UInt8], size: ImageSize) -> [UInt8] {
        guard ftyp.count >= 16, (ftyp.count - 16) % 4 == 0 else { return ftyp }
        let pixels = size.width * size.height
        let exceeds: [String: Bool] = [
            "MA1B": size.width > 8192 || size.height > 4352 || pixels > 8_912_896,
            "MA1A": size.width > 16384 || size.height > 8704 || pixels > 35_651_584,
        ]
        var payload = Array(ftyp[8..<16])
        for start in stride(from: 16, to: ftyp.count, by: 4) where exceeds[String(decoding: ftyp[start..<start + 4], as: UTF8.self)] != true {
            payload += ftyp[start..<start + 4]
        }
        return AVIFBox.make("ftyp", payload)
    }

    /// The items, properties, references and data as they are added, written out by `meta`.
    private struct Plan {
        struct Entry {
            let id: Int
            let flags: [UInt8]
            let infoTail: [UInt8]
            /// Offset and length in `mdat`.
            let data: (offset: Int, length: Int)
            /// Indices into `properties`, from 1.
            let associations: [(property: Int, essential: Bool)]
        }

        private(set) var entries: [Entry] = []
        private(set) var properties: [[UInt8]] = []
        private var propertyIndex: [[UInt8]: Int] = [:]
        var references: [(type: String, from: Int, to: [Int])] = []
        private(set) var mdat: [UInt8] = []
        private var stored: [[UInt8]: Int] = [:]

        /// `bytes` appended to `mdat`, or where equal `shared` bytes already lie.
        mutating func data(_ bytes: [UInt8], shared: Bool) -> (offset: Int, length: Int) {
            if shared, let offset = stored[bytes] { return (offset, bytes.count) }
            let offset = mdat.count
            mdat += bytes
            if shared { stored[bytes] = offset }
            return (offset, bytes.count)
        }

        /// A cell (hidden) or a metadata item, with the item's own properties.
        mutating func add(_ item: AVIFCellFile.Item, data: (offset: Int, length: Int), hidden: Bool = true) -> Int {
            append(flags: [0, 0, hidden ? 1 : 0], infoTail: item.infoTail, data: data, properties: item.properties)
        }

        /// A grid over cells like `cell`: the cell's item info with `type`, the grid's `ispe` and
        /// the cell's properties other than its size and AV1 configuration.
        mutating func add(colourOf cell: AVIFCellFile.Item, type: String, data: (offset: Int, length: Int), size: AVIFCellFile.Property, hidden: Bool) -> Int {
            // The tail: protection index (2), item type (4), name and what follows.
            let tail = cell.infoTail.count >= 6 ? Array(cell.infoTail[0..<2]) + Array(type.utf8) + cell.infoTail[6...] : [0, 0] + Array(type.utf8) + [0]
            let properties = [size] + cell.properties.filter { $0.type != "ispe" && $0.type != "av1C" }
            return append(flags: [0, 0, hidden ? 1 : 0], infoTail: tail, data: data, properties: properties)
        }

        private mutating func append(flags: [UInt8], infoTail: [UInt8], data: (offset: Int, length: Int), properties: [AVIFCellFile.Property]) -> Int {
            let id = entries.count + 1
            let associations = properties.map { property in
                if let index = propertyIndex[property.box] { return (index, property.essential) }
                self.properties.append(property.box)
                propertyIndex[property.box] = self.properties.count
                return (self.properties.count, property.essential)
            }
            entries.append(Entry(id: id, flags: flags, infoTail: infoTail, data: data, associations: associations))
            return id
        }

        /// `meta` with item data at `dataStart` + its offset in `mdat`. Item IDs are 16-bit
        /// (the layout caps the cells), so every box is of its 16-bit version.
        func meta(handler: [UInt8], dataStart: Int) throws(ImagePipeError) -> [UInt8] {
            guard fits(entries.count, 2), entries.allSatisfy({ $0.associations.count <= 255 }) else {
                throw .encodingFailed(reason: "AVIF grid: \(entries.count) items do not fit 16-bit item IDs")
            }
            let pitm = AVIFBox.make("pitm", [0, 0, 0, 0] + bigEndian(1, 2))
            // Version 0; 4-byte offsets and lengths, no base offset; one extent per item.
            var iloc: [UInt8] = [0, 0, 0, 0, 0x44, 0x00] + bigEndian(entries.count, 2)
            var iinf: [UInt8] = [0, 0, 0, 0] + bigEndian(entries.count, 2)
            for entry in entries {
                guard fits(dataStart + entry.data.offset, 4) else { throw .encodingFailed(reason: "AVIF grid: image data past 4 GiB") }
                iloc += bigEndian(entry.id, 2) + [0, 0, 0, 1] + bigEndian(dataStart + entry.data.offset, 4) + bigEndian(entry.data.length, 4)
                iinf += AVIFBox.make("infe", [2] + entry.flags + bigEndian(entry.id, 2) + entry.infoTail)
            }
            var iref: [UInt8] = [0, 0, 0, 0]
            for reference in references {
                iref += AVIFBox.make(reference.type, bigEndian(reference.from, 2) + bigEndian(reference.to.count, 2) + reference.to.flatMap { bigEndian($0, 2) })
            }
            // Property indices take 7 bits, or 15 with flag 1.
            let wide = properties.count > 127
            var ipma: [UInt8] = [0, 0, 0, wide ? 1 : 0] + bigEndian(entries.count, 4)
            for entry in entries {
                ipma += bigEndian(entry.id, 2) + [UInt8(entry.associations.count)]
                for association in entry.associations {
                    let essential = association.essential ? (wide ? 0x8000 : 0x80) : 0
                    ipma += bigEndian(association.property | essential, wide ? 2 : 1)
                }
            }
            let iprp = AVIFBox.make("iprp", AVIFBox.make("ipco", properties.flatMap { $0 }) + AVIFBox.make("ipma", ipma))
            let children = handler + pitm + AVIFBox.make("iloc", iloc) + AVIFBox.make("iinf", iinf) + AVIFBox.make("iref", iref) + iprp
            return AVIFBox.make("meta", [0, 0, 0, 0] + children)
        }
    }
}
