import PipelineCore

/// Grids as libavif ≥ 1.0 assembles them, written into a `meta` box that libavif 0.11 reads the
/// same way:
///
/// - **Tile order.** libavif 1.x places a grid's tiles in the order of its `dimg` references;
///   0.11 places them in the order it first met the tile items in the boxes of `meta`. The
///   rebuilt box puts `iinf` right after `hdlr` (0.11 then meets items in `iinf` order) with the
///   `infe` entries of each grid's tiles reordered among the places they held.
/// - **Alpha per tile** (libavif's color_grid_alpha_nogrid layout). A colour grid whose every tile has its own alpha
///   auxiliary image, and no alpha image of its own, has alpha in libavif 1.x (which makes an
///   alpha grid of those images, `avifMetaFindAlphaItem`); 0.11 drops it. The rebuilt box has that
///   grid as an item: the colour grid's location and size, an alpha `auxC`, `auxl` to the colour
///   grid and `dimg` to the alpha images in tile order.
///
/// Nothing is rebuilt when 0.11 already reads the file as 1.x does, or when a box is not as
/// libavif 0.11 would read it (0.11 then decides, as before).
enum AVIFGridRewrite {
    /// The rebuilt `meta` box, or nil when none is needed or possible. Throws `badImageData` for
    /// alpha images libavif 1.x refuses (AVIF_RESULT_INVALID_IMAGE_GRID): two for one tile, or
    /// one that is itself a tile of another image.
    static func rebuiltMeta(_ meta: AVIFMetaBox) throws(ImagePipeError) -> [UInt8]? {
        guard meta.childrenFillTheBox, meta.children.first?.type == "hdlr", meta.infoBox != nil, meta.infosAreReadable, meta.referencesFillTheirBoxes,
            meta.locations != nil, meta.associationBoxes.allSatisfy(\.isComplete)
        else { return nil }
        let graph = Graph(meta)
        let alphaGrid = try graph.alphaGridFromTiles()
        var grids = graph.grids
        if let alphaGrid { grids[alphaGrid.id] = alphaGrid.tiles }
        let order = graph.infoOrder(placingTilesOf: grids)
        guard alphaGrid != nil || graph.misplacesTiles(of: grids) else { return nil }
        return Writer(meta: meta, infoOrder: order, alphaGrid: alphaGrid, colour: graph.colour).rebuilt()
    }

    /// The items' references as libavif 0.11 resolves them.
    struct Graph {
        let meta: AVIFMetaBox
        /// Item IDs in the order libavif 0.11 first meets them (`AVIFMetaBox.libavifItemOrder`).
        let libavifOrder: [Int]
        /// Each grid's `dimg` references in order (all of a grid's `dimg` boxes, one after another).
        let grids: [Int: [Int]]
        /// The grid each item is a tile of: the last `dimg` naming it (`dimgForID`).
        let tileOf: [Int: Int]
        /// The alpha auxiliary images of each item, in `libavifOrder`: items whose last `auxl`
        /// target (`auxForID`) it is and whose `auxC` says alpha.
        let alphaImages: [Int: [Int]]
        let colour: Int?

        init(_ meta: AVIFMetaBox) {
            self.meta = meta
            libavifOrder = meta.libavifItemOrder
            var grids: [Int: [Int]] = [:]
            var tileOf: [Int: Int] = [:]
            var auxiliaryTo: [Int: Int] = [:]
            for reference in meta.references where reference.from != 0 {
                for to in reference.to where to != 0 {
                    if reference.type == "dimg" {
                        grids[reference.from, default: []].append(to)
                        tileOf[to] = reference.from
                    } else if reference.type == "auxl" {
                        auxiliaryTo[reference.from] = to
                    }
                }
            }
            var alphaImages: [Int: [Int]] = [:]
            for item in libavifOrder {
                if let parent = auxiliaryTo[item], AVIFAuxiliaryType.isAlpha(meta.auxiliaryType(of: item)) { alphaImages[parent, default: []].append(item) }
            }
            self.grids = grids.filter { meta.item($0.key)?.type == "grid" }
            self.tileOf = tileOf
            self.alphaImages = alphaImages
            colour = meta.primary
        }

        /// libavif 1.x's alpha grid for a colour grid whose tiles carry alpha each; nil when the
        /// colour image has an alpha image of its own, is not a grid, or a tile has no alpha.
        func alphaGridFromTiles() throws(ImagePipeError) -> (id: Int, tiles: [Int])? {
            guard let colour, let tiles = grids[colour], !tiles.isEmpty, alphaImages[colour] == nil else { return nil }
            var alphaTiles: [Int] = []
            var used = Set<Int>()
            for tile in tiles {
                guard let candidates = alphaImages[tile] else { return nil }
                let alpha = candidates[0]
                guard candidates.count == 1, tileOf[alpha] == nil, used.insert(alpha).inserted else {
                    throw .badImageData(reason: "AVIF grid \(colour) has alpha images that do not make a grid: tile \(tile) has alpha images \(candidates)")
                }
                alphaTiles.append(alpha)
            }
            return (max(libavifOrder.max() ?? 0, colour) + 1, alphaTiles)
        }

        /// Grids whose tiles libavif 0.11 can place: distinct items with item infos, each a tile
        /// of that grid alone (so no tile is in two of them).
        private func placeable(_ grids: [Int: [Int]]) -> [[Int]] {
            grids.sorted { $0.key < $1.key }.compactMap { grid, tiles in
                let valid = Set(tiles).count == tiles.count && tiles.allSatisfy { meta.item($0) != nil && (tileOf[$0] ?? grid) == grid }
                return valid ? tiles : nil
            }
        }

        /// True when libavif 0.11, reading the boxes as they are, meets some grid's tiles in
        /// another order than its `dimg` references give.
        func misplacesTiles(of grids: [Int: [Int]]) -> Bool {
            let position = Dictionary(libavifOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
            return placeable(grids).contains { tiles in
                let positions = tiles.map { position[$0] ?? .max }
                return positions != positions.sorted()
            }
        }

        /// The item infos (indices into `meta.items`) in a new order: each grid's tiles in `dimg`
        /// order among the places they hold, the rest where they are.
        func infoOrder(placingTilesOf grids: [Int: [Int]]) -> [Int] {
            var order = Array(meta.items.indices)
            let position = Dictionary(meta.items.enumerated().map { ($1.id, $0) }, uniquingKeysWith: min)
            for tiles in placeable(grids) {
                let infos = tiles.compactMap { position[$0] }
                guard infos.count == tiles.count else { continue }
                for (place, info) in zip(infos.sorted(), infos) { order[place] = info }
            }
            return order
        }
    }

    /// The rebuilt box: `hdlr`, `iinf`, then the other children in their order, `iloc`, `iprp`
    /// and `iref` extended when an alpha grid is added; untouched boxes are copied byte for byte.
    struct Writer {
        let meta: AVIFMetaBox
        /// Indices into `meta.items`.
        let infoOrder: [Int]
        let alphaGrid: (id: Int, tiles: [Int])?
        let colour: Int?

        func rebuilt() -> [UInt8]? {
            let bytes = meta.bytes
            guard let infos = itemInfos() else { return nil }
            var children = bytes[meta.children[0].range] + infos
            for child in meta.children.dropFirst() where child.type != "iinf" {
                switch (child.type, alphaGrid) {
                case ("iloc", .some):
                    guard let box = itemLocations() else { return nil }
                    children += box
                case ("iprp", .some):
                    guard let box = itemProperties(child) else { return nil }
                    children += box
                case ("iref", .some):
                    guard let box = itemReferences() else { return nil }
                    children += box
                default:
                    children += bytes[child.range]
                }
            }
            // The meta box's own version and flags.
            let header = bytes[meta.box.payload.lowerBound..<meta.box.payload.lowerBound + 4]
            return AVIFBox.make("meta", Array(header + children))
        }

        /// `iinf` of the same version with its entries in `infoOrder`, the alpha grid's after them.
        private func itemInfos() -> [UInt8]? {
            let bytes = meta.bytes
            guard let iinf = meta.infoBox else { return nil }
            let count = meta.items.count + (alphaGrid == nil ? 0 : 1)
            guard fits(count, meta.infoVersion == 0 ? 2 : 4) else { return nil }
            var payload = Array(bytes[iinf.payload.lowerBound..<iinf.payload.lowerBound + 4]) + bigEndian(count, meta.infoVersion == 0 ? 2 : 4)
            for index in infoOrder { payload += bytes[meta.items[index].info] }
            if let alphaGrid {
                // infe version 2 (16-bit ID) or 3, no protection, type `grid`, an empty name.
                let version: UInt8 = alphaGrid.id <= 0xFFFF ? 2 : 3
                payload += AVIFBox.make("infe", [version, 0, 0, 0] + bigEndian(alphaGrid.id, version == 2 ? 2 : 4) + [0, 0] + Array("grid".utf8) + [0])
            }
            payload += bytes[meta.infoEntriesEnd..<iinf.end]
            return AVIFBox.make("iinf", payload)
        }

        /// `iloc` with one more entry after the last: the colour grid's, under the alpha grid's ID
        /// (both grids have the same layout, so they share the grid description's bytes).
        private func itemLocations() -> [UInt8]? {
            let bytes = meta.bytes
            guard let alphaGrid, let iloc = meta.locationBox, let locations = meta.locations, let last = locations.last,
                let source = locations.first(where: { $0.id == colour })
            else { return nil }
            let wide = meta.locationVersion == 2
            guard wide || alphaGrid.id <= 0xFFFF else { return nil }
            let countAt = iloc.payload.lowerBound + 6
            let countWidth = wide ? 4 : 2
            var reader = ISOBMFFBytes(bytes, countAt..<countAt + countWidth)
            guard let count = reader.uint(countWidth), fits(count + 1, countWidth) else { return nil }
            let idWidth = wide ? 4 : 2
            let entry = bigEndian(alphaGrid.id, idWidth) + bytes[source.entry.lowerBound + idWidth..<source.entry.upperBound]
            let payload =
                bytes[iloc.payload.lowerBound..<countAt] + bigEndian(count + 1, countWidth) + bytes[countAt + countWidth..<last.entry.upperBound] + entry
                + bytes[last.entry.upperBound..<iloc.end]
            return AVIFBox.make("iloc", Array(payload))
        }

        /// `iprp` whose last `ipma` has one more entry: the alpha grid's `auxC` and `pixi` (those
        /// of its first alpha image; libavif 0.11 wants `pixi` unless its strict flags are off)
        /// and the colour grid's `ispe`, none essential. IDs in `ipma` increase, and the alpha
        /// grid's is the largest.
        private func itemProperties(_ iprp: AVIFBox) -> [UInt8]? {
            let bytes = meta.bytes
            guard let alphaGrid, let colour, let ipma = meta.associationBoxes.last,
                let auxC = meta.firstAssociation(of: alphaGrid.tiles[0], type: "auxC")
            else { return nil }
            let pixi = meta.firstAssociation(of: alphaGrid.tiles[0], type: "pixi"), ispe = meta.firstAssociation(of: colour, type: "ispe")
            let properties = [auxC, pixi, ispe].compactMap { $0?.property }
            let wide = ipma.flags & 1 == 1
            guard properties.allSatisfy({ $0 < (wide ? 0x8000 : 0x80) }), ipma.version >= 1 || alphaGrid.id <= 0xFFFF,
                fits(ipma.entries.count + 1, 4)
            else { return nil }
            let entry = bigEndian(alphaGrid.id, ipma.version >= 1 ? 4 : 2) + [UInt8(properties.count)] + properties.flatMap { bigEndian($0, wide ? 2 : 1) }
            let countAt = ipma.box.payload.lowerBound + 4
            let payload =
                bytes[ipma.box.payload.lowerBound..<countAt] + bigEndian(ipma.entries.count + 1, 4) + bytes[countAt + 4..<ipma.entriesEnd] + entry
                + bytes[ipma.entriesEnd..<ipma.box.end]
            let boxes = AVIFBox.children(of: bytes, in: iprp.payload)
            guard boxes.last?.end == iprp.end else { return nil }
            var children: [UInt8] = []
            for child in boxes {
                children += child.start == ipma.box.start ? AVIFBox.make("ipma", Array(payload)) : Array(bytes[child.range])
            }
            return AVIFBox.make("iprp", children)
        }

        /// `iref` with `auxl` from the alpha grid to the colour grid and `dimg` from it to the
        /// alpha images, after the references it has.
        private func itemReferences() -> [UInt8]? {
            let bytes = meta.bytes
            guard let alphaGrid, let colour, let iref = meta.referenceBox else { return nil }
            let width = meta.referenceVersion == 0 ? 2 : 4
            guard ([alphaGrid.id, colour] + alphaGrid.tiles).allSatisfy({ fits($0, width) }), fits(alphaGrid.tiles.count, 2) else { return nil }
            let auxl = AVIFBox.make("auxl", bigEndian(alphaGrid.id, width) + bigEndian(1, 2) + bigEndian(colour, width))
            let dimg = AVIFBox.make("dimg", bigEndian(alphaGrid.id, width) + bigEndian(alphaGrid.tiles.count, 2) + alphaGrid.tiles.flatMap { bigEndian($0, width) })
            return AVIFBox.make("iref", Array(bytes[iref.payload]) + auxl + dimg)
        }
    }
}
