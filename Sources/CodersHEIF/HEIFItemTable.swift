import PipelineCore

/// The items of a HEIF file's `meta` box as libheif reads them, from the boxes alone: each item's
/// type, where its data lies, its `ispe`, `hvcC` and `auxC` properties, and the references between
/// items.
/// Read before libheif decodes anything, to know what a decode will allocate.
struct HEIFItemTable {
    struct Item {
        var type = ""
        /// The item's data: byte ranges in the file (already resolved for `idat` items).
        var extents: [Range<Int>] = []
        /// `ispe`: the size the file declares for the item.
        var declaredSize: ImageSize?
        /// The payload of the item's `hvcC` box.
        var hevcConfiguration: Range<Int>?
        /// `auxC`: what an auxiliary image holds, as a URN.
        var auxiliaryType: String?
        /// `dimg`: the items this one is derived from (grid tiles, overlay inputs), in order.
        var derivedFrom: [Int] = []
        /// `auxl`: items that are auxiliary images of this one (alpha, depth).
        var auxiliaries: [Int] = []
        /// True when the item's data could not be located.
        var unlocated = false

        /// An alpha plane as libheif 1.15 recognises one: the only auxiliary image it decodes
        /// (depth maps are left alone unless asked for).
        var isAlpha: Bool {
            ["urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]
                .contains(auxiliaryType)
        }
    }

    let bytes: [UInt8]
    let primary: Int?
    private(set) var items: [Int: Item] = [:]

    /// Nil when the file has no `meta` box with an item list.
    init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        guard let meta = ISOBMFFBox.children(of: bytes, in: 0..<bytes.count).first(where: { $0.type == "meta" }),
            meta.payload.count >= 4
        else { return nil }
        // meta is a full box: 4 bytes of version and flags before its children.
        let children = ISOBMFFBox.children(of: bytes, in: meta.payload.lowerBound + 4..<meta.payload.upperBound)
        func child(_ type: String) -> ISOBMFFBox? { children.first { $0.type == type } }
        guard let iinf = child("iinf") else { return nil }
        primary = child("pitm").flatMap { Self.primaryID($0, bytes) }
        readTypes(iinf)
        if let iloc = child("iloc") { readLocations(iloc, idat: child("idat")) }
        if let iprp = child("iprp") { readProperties(iprp) }
        if let iref = child("iref") { readReferences(iref) }
    }

    subscript(id: Int) -> Item? { items[id] }

    private static func primaryID(_ pitm: ISOBMFFBox, _ bytes: [UInt8]) -> Int? {
        var reader = ISOBMFFBytes(bytes, pitm.payload)
        guard let version = reader.u8(), reader.skip(3) else { return nil }
        return version == 0 ? reader.u16() : reader.u32()
    }

    /// Item info entries of version 2 or 3 (the ones that carry a type).
    private mutating func readTypes(_ iinf: ISOBMFFBox) {
        var reader = ISOBMFFBytes(bytes, iinf.payload)
        guard let version = reader.u8(), reader.skip(3), (version == 0 ? reader.u16() : reader.u32()) != nil else { return }
        for entry in ISOBMFFBox.children(of: bytes, in: reader.position..<iinf.payload.upperBound) where entry.type == "infe" {
            var infe = ISOBMFFBytes(bytes, entry.payload)
            guard let entryVersion = infe.u8(), entryVersion >= 2, infe.skip(3),
                let id = entryVersion == 2 ? infe.u16() : infe.u32(), infe.skip(2),
                let type = infe.fourCC(), items[id] == nil
            else { continue }
            items[id] = Item(type: type)
        }
    }

    /// `iloc` of version 0-2; construction method 0 (the file) or 1 (`idat`).
    private mutating func readLocations(_ iloc: ISOBMFFBox, idat: ISOBMFFBox?) {
        var reader = ISOBMFFBytes(bytes, iloc.payload)
        guard let version = reader.u8(), version <= 2, reader.skip(3), let sizes = reader.u8(), let sizes2 = reader.u8(),
            let count = version < 2 ? reader.u16() : reader.u32()
        else { return }
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseOffsetSize = sizes2 >> 4
        let indexSize = version >= 1 ? sizes2 & 15 : 0
        for _ in 0..<min(count, 65_536) {
            guard let id = version < 2 ? reader.u16() : reader.u32() else { return }
            var method = 0
            if version >= 1 {
                guard let value = reader.u16() else { return }
                method = value & 15
            }
            guard reader.skip(2), let base = reader.uint(baseOffsetSize), let extentCount = reader.u16() else { return }
            var extents: [Range<Int>] = []
            var located = method == 0 || (method == 1 && idat != nil)
            let origin = method == 1 ? idat?.payload.lowerBound ?? 0 : 0
            for _ in 0..<extentCount {
                guard reader.skip(indexSize), let offset = reader.uint(offsetSize), let length = reader.uint(lengthSize) else { return }
                let (start, overflow) = origin.addingReportingOverflow(base)
                let (first, overflow2) = start.addingReportingOverflow(offset)
                // A length of 0 means "to the end of the file" (or of `idat`).
                let limit = method == 1 ? idat?.payload.upperBound ?? 0 : bytes.count
                guard located, !overflow, !overflow2, first <= limit else {
                    located = false
                    continue
                }
                extents.append(first..<(length == 0 ? limit : min(limit, first + min(length, limit - first))))
            }
            guard items[id] != nil, items[id]!.extents.isEmpty else { continue }
            items[id]!.extents = extents
            items[id]!.unlocated = !located
        }
    }

    /// `ispe`, `hvcC` and `auxC` of each item, through `ipma`'s associations into `ipco`.
    private mutating func readProperties(_ iprp: ISOBMFFBox) {
        let children = ISOBMFFBox.children(of: bytes, in: iprp.payload)
        guard let ipco = children.first(where: { $0.type == "ipco" }) else { return }
        let properties = ISOBMFFBox.children(of: bytes, in: ipco.payload)
        for ipma in children where ipma.type == "ipma" {
            var reader = ISOBMFFBytes(bytes, ipma.payload)
            guard let version = reader.u8(), reader.skip(2), let flags = reader.u8(), let count = reader.u32() else { continue }
            for _ in 0..<min(count, 65_536) {
                guard let id = version < 1 ? reader.u16() : reader.u32(), let associations = reader.u8() else { break }
                for _ in 0..<associations {
                    guard let entry = flags & 1 == 1 ? reader.u16() : reader.u8() else { return }
                    let index = entry & (flags & 1 == 1 ? 0x7FFF : 0x7F)
                    guard index >= 1, index <= properties.count, items[id] != nil else { continue }
                    let property = properties[index - 1]
                    switch property.type {
                    case "ispe":
                        var ispe = ISOBMFFBytes(bytes, property.payload)
                        guard ispe.skip(4), let width = ispe.u32(), let height = ispe.u32(), items[id]!.declaredSize == nil else { continue }
                        items[id]!.declaredSize = ImageSize(width: width, height: height)
                    case "hvcC":
                        if items[id]!.hevcConfiguration == nil { items[id]!.hevcConfiguration = property.payload }
                    case "auxC":
                        // A full box, then the type as a null-terminated string.
                        guard items[id]!.auxiliaryType == nil, property.payload.count > 4 else { continue }
                        let text = bytes[property.payload.lowerBound + 4..<property.payload.upperBound].prefix(256).prefix { $0 != 0 }
                        items[id]!.auxiliaryType = String(decoding: text, as: UTF8.self)
                    default:
                        continue
                    }
                }
            }
        }
    }

    /// `dimg` and `auxl` references (version 0: 16-bit item IDs, 1: 32-bit), read as libheif 1.15
    /// reads them: one entry after another, each a box header whose size is not used to find the
    /// next, so a file whose entry sizes disagree with their contents references here what it
    /// references for libheif (a fuzz finding made a grid derived from itself that way).
    private mutating func readReferences(_ iref: ISOBMFFBox) {
        var reader = ISOBMFFBytes(bytes, iref.payload)
        guard let version = reader.u8(), reader.skip(3) else { return }
        func id() -> Int? { version == 0 ? reader.u16() : reader.u32() }
        while reader.position < reader.end {
            guard let size = reader.u32(), let type = reader.fourCC(), size != 1 || reader.skip(8), type != "uuid" || reader.skip(16),
                let from = id(), let count = reader.u16()
            else { return }
            var targets: [Int] = []
            for _ in 0..<count {
                guard let to = id() else { break }
                targets.append(to)
            }
            if type == "dimg" {
                if items[from] != nil { items[from]!.derivedFrom += targets }
            } else if type == "auxl" {
                // "from" is the auxiliary image of each "to" item.
                for to in targets where items[to] != nil { items[to]!.auxiliaries.append(from) }
            }
        }
    }
}
