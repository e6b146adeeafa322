import PipelineCore

/// A `meta` box read as libavif 0.11 reads it, keeping where each entry lies in the box's bytes:
/// item infos (`iinf`), locations (`iloc`), properties and their associations (`iprp`) and
/// references (`iref`), for `AVIFEssentialProperties` to check and `AVIFGridRewrite` to reorder
/// and extend. Every size, count and offset is checked; nothing is allocated by a declared count.
/// A box it cannot read leaves its part empty (libavif then refuses the file itself).
struct AVIFMetaBox {
    struct Item {
        let id: Int
        let type: String
        /// The whole `infe` box.
        let info: Range<Int>
    }

    struct Location {
        let id: Int
        /// The whole entry, ID first.
        let entry: Range<Int>
        /// 0: in the file, 1: in `idat`, 2: in another item.
        let method: Int
        /// Absolute offsets and lengths (0: to the end of the file) of the extents.
        let extents: [(offset: Int, length: Int)]
    }

    struct Association {
        let essential: Bool
        /// Index into `properties`, from 1 (0 means none).
        let property: Int
    }

    struct AssociationBox {
        let box: AVIFBox
        let version: Int
        let flags: Int
        let entries: [(item: Int, associations: [Association])]
        /// Where the entries libavif reads (`entry_count` of them) end.
        let entriesEnd: Int
        /// False when fewer than `entry_count` entries could be read.
        let isComplete: Bool
    }

    struct Reference {
        let type: String
        let from: Int
        let to: [Int]
    }

    /// The bytes `box` lies in.
    let bytes: [UInt8]
    let box: AVIFBox
    let children: [AVIFBox]
    private(set) var primary: Int?
    private(set) var infoBox: AVIFBox?
    private(set) var infoVersion = 0
    private(set) var items: [Item] = []
    private var itemsByID: [Int: Item] = [:]
    /// Where the entries libavif reads (`entry_count` of them) end; bytes after them are kept.
    private(set) var infoEntriesEnd = 0
    /// False when an entry libavif reads is not an `infe` of version 2 or 3 (it then refuses the file).
    private(set) var infosAreReadable = true
    private(set) var locationBox: AVIFBox?
    private(set) var locationVersion = 0
    /// Nil when an entry cannot be read.
    private(set) var locations: [Location]? = []
    /// The `ipco` children, property 1 first.
    private(set) var properties: [AVIFBox] = []
    private(set) var associationBoxes: [AssociationBox] = []
    private var associationsByItem: [Int: [Association]] = [:]
    private(set) var referenceBox: AVIFBox?
    private(set) var referenceVersion = 0
    private(set) var references: [Reference] = []
    /// False when the references, read one after another as libavif 0.11 reads them (it does not
    /// use their sizes to find the next), do not fill their boxes exactly.
    private(set) var referencesFillTheirBoxes = true

    /// The most extents read from `iloc`, all items together (a grid of 48 tiles has 49).
    static let maxExtents = 1 << 16

    /// True when the children are whole boxes up to the end of `meta` (else libavif refuses it).
    var childrenFillTheBox: Bool { box.payload.count >= 4 && (children.last?.end ?? box.payload.lowerBound + 4) == box.end }

    /// `box` is a `meta` box inside `bytes`.
    init(_ bytes: [UInt8], _ box: AVIFBox) {
        self.bytes = bytes
        self.box = box
        // A full box: version and flags before the children.
        children = box.payload.count >= 4 ? AVIFBox.children(of: bytes, in: box.payload.lowerBound + 4..<box.payload.upperBound) : []
        for child in children {
            switch child.type {
            case "pitm" where primary == nil: readPrimary(child)
            case "iinf" where infoBox == nil: readInfos(child)
            case "iloc" where locationBox == nil: readLocations(child)
            case "iprp" where properties.isEmpty: readProperties(child)
            case "iref" where referenceBox == nil: readReferences(child)
            default: continue
            }
        }
    }

    /// The first item info of `id`.
    func item(_ id: Int) -> Item? { itemsByID[id] }

    /// The `auxC` type (a URN) of item `id`: its first `auxC` association, as libavif finds it.
    func auxiliaryType(of id: Int) -> String? {
        firstAssociation(of: id, type: "auxC").flatMap { property($0.property) }.flatMap { AVIFAuxiliaryType.read(bytes, $0) }
    }

    /// Item `id`'s first association with a property of `type`.
    func firstAssociation(of id: Int, type: String) -> Association? {
        associations(of: id).first { property($0.property)?.type == type }
    }

    func associations(of id: Int) -> [Association] { associationsByItem[id] ?? [] }

    /// Property `index` (from 1), nil for 0 and indices past `ipco`.
    func property(_ index: Int) -> AVIFBox? {
        properties.indices.contains(index - 1) ? properties[index - 1] : nil
    }

    /// Item IDs in the order libavif 0.11 first meets them, box by box in the order `meta` lists
    /// them; it keeps its items in this order and assembles a grid from its tiles in this order,
    /// whatever order `dimg` gives them.
    var libavifItemOrder: [Int] {
        var order: [Int] = []
        var seen = Set<Int>()
        func meet(_ id: Int) { if seen.insert(id).inserted { order.append(id) } }
        for child in children {
            switch child.type {
            case "iloc": locations?.forEach { meet($0.id) }
            case "iinf": items.forEach { meet($0.id) }
            case "iprp": associationBoxes.forEach { $0.entries.forEach { meet($0.item) } }
            case "iref":
                for reference in references where reference.from != 0 {
                    for to in reference.to where to != 0 {
                        meet(reference.from)
                        if reference.type == "dimg" { meet(to) }
                    }
                }
            default: continue
            }
        }
        return order
    }

    private mutating func readPrimary(_ pitm: AVIFBox) {
        var reader = ISOBMFFBytes(bytes, pitm.payload)
        guard let header = reader.versionAndFlags() else { return }
        primary = header.version == 0 ? reader.u16() : reader.u32()
    }

    /// Version 0 (16-bit count) or 1 (32-bit), then that many `infe` boxes of version 2 or 3.
    private mutating func readInfos(_ iinf: AVIFBox) {
        var reader = ISOBMFFBytes(bytes, iinf.payload)
        guard let header = reader.versionAndFlags(), header.version <= 1,
            let count = header.version == 0 ? reader.u16() : reader.u32()
        else { return }
        infoBox = iinf
        infoVersion = header.version
        infoEntriesEnd = reader.position
        let entries = AVIFBox.children(of: bytes, in: reader.position..<iinf.end).prefix(count)
        infosAreReadable = entries.count == count
        for entry in entries {
            infoEntriesEnd = entry.end
            var infe = ISOBMFFBytes(bytes, entry.payload)
            guard entry.type == "infe", let version = infe.versionAndFlags()?.version, version == 2 || version == 3,
                let id = version == 2 ? infe.u16() : infe.u32(), infe.skip(2), let type = infe.fourCC()
            else {
                infosAreReadable = false
                continue
            }
            let item = Item(id: id, type: type, info: entry.range)
            items.append(item)
            if itemsByID[id] == nil { itemsByID[id] = item }
        }
    }

    /// Versions 0-2. Extents in `idat` (method 1) are located relative to it and left as given.
    private mutating func readLocations(_ iloc: AVIFBox) {
        locationBox = iloc
        var reader = ISOBMFFBytes(bytes, iloc.payload)
        guard let version = reader.versionAndFlags()?.version, version <= 2, let sizes = reader.u8(), let sizes2 = reader.u8(),
            let count = version < 2 ? reader.u16() : reader.u32()
        else {
            locations = nil
            return
        }
        locationVersion = version
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = sizes2 >> 4, indexSize = version >= 1 ? sizes2 & 15 : 0
        // Extents of 0-byte fields take no bytes: their number is capped instead of the box's size.
        var extentBudget = Self.maxExtents
        var found: [Location] = []
        for _ in 0..<count {
            let start = reader.position
            guard let id = version < 2 ? reader.u16() : reader.u32(), let method = version >= 1 ? reader.u16().map({ $0 & 15 }) : 0,
                reader.skip(2), let base = reader.uint(baseSize), let extentCount = reader.u16()
            else {
                locations = nil
                return
            }
            extentBudget -= extentCount
            guard extentBudget >= 0 else {
                locations = nil
                return
            }
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                guard reader.skip(indexSize), let offset = reader.uint(offsetSize), let length = reader.uint(lengthSize) else {
                    locations = nil
                    return
                }
                let (sum, overflow) = base.addingReportingOverflow(offset)
                extents.append((overflow ? .max : sum, length))
            }
            found.append(Location(id: id, entry: start..<reader.position, method: method, extents: extents))
        }
        locations = found
    }

    private mutating func readProperties(_ iprp: AVIFBox) {
        let children = AVIFBox.children(of: bytes, in: iprp.payload)
        guard let ipco = children.first(where: { $0.type == "ipco" }) else { return }
        properties = AVIFBox.children(of: bytes, in: ipco.payload)
        for ipma in children where ipma.type == "ipma" {
            var reader = ISOBMFFBytes(bytes, ipma.payload)
            guard let header = reader.versionAndFlags(), let count = reader.u32() else { continue }
            let wide = header.flags & 1 == 1
            var entries: [(item: Int, associations: [Association])] = []
            var complete = true
            entryLoop: for _ in 0..<count {
                guard let item = header.version < 1 ? reader.u16() : reader.u32(), let associationCount = reader.u8() else {
                    complete = false
                    break
                }
                var associations: [Association] = []
                for _ in 0..<associationCount {
                    guard let value = wide ? reader.u16() : reader.u8() else {
                        complete = false
                        break entryLoop
                    }
                    let essentialBit = wide ? 0x8000 : 0x80
                    associations.append(Association(essential: value & essentialBit != 0, property: value & (essentialBit - 1)))
                }
                entries.append((item, associations))
                associationsByItem[item, default: []] += associations
            }
            associationBoxes.append(
                AssociationBox(box: ipma, version: header.version, flags: header.flags, entries: entries, entriesEnd: reader.position, isComplete: complete))
        }
    }

    /// Version 0 (16-bit IDs) or 1 (32-bit); each reference a box header, a `from` ID, a count and
    /// the `to` IDs, read one after another.
    private mutating func readReferences(_ iref: AVIFBox) {
        var reader = ISOBMFFBytes(bytes, iref.payload)
        guard let version = reader.versionAndFlags()?.version, version <= 1 else { return }
        referenceBox = iref
        referenceVersion = version
        func id() -> Int? { version == 0 ? reader.u16() : reader.u32() }
        while reader.position < reader.end {
            let start = reader.position
            guard let size = reader.u32(), size >= 8, let type = reader.fourCC(), let from = id(), let count = reader.u16() else {
                referencesFillTheirBoxes = false
                return
            }
            var to: [Int] = []
            for _ in 0..<count {
                guard let target = id() else {
                    referencesFillTheirBoxes = false
                    return
                }
                to.append(target)
            }
            if reader.position != start + size { referencesFillTheirBoxes = false }
            references.append(Reference(type: type, from: from, to: to))
        }
    }
}
