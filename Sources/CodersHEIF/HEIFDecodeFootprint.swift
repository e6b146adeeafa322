import Foundation
import PipelineCore

/// What libheif 1.15 allocates and decodes for one image (the primary or a thumbnail), measured
/// from the boxes before it decodes anything. libheif takes a grid's or an overlay's canvas from
/// the item's own data, and libde265 a picture's size from its HEVC parameter sets; neither is
/// checked against the item's `ispe` or any limit, so a 2 KB file can make them allocate
/// gigabytes. Every image the decode reaches is measured: the item, the items it is derived from
/// (`dimg`, recursively: grid tiles, overlay inputs, and derived images nested in them) and their
/// auxiliary images (`auxl`: alpha, and depth, which libheif skips but is counted all the same).
/// The HEVC sequence parameter sets of every coded image libde265 will decode are checked on the
/// way, as libde265 checks them: one it would refuse (printing on stderr as it does) makes the
/// measure unreadable, so that libde265 never sees it.
enum HEIFDecodeFootprint {
    struct Footprint: Equatable {
        /// The largest image allocated: a derived image's canvas or a coded picture.
        var largest: ImageSize
        /// Pixels of the coded pictures decoded, each reference counted (a tile used twice is
        /// decoded twice); derived images' canvases are allocated, not decoded, and not counted.
        var decodedPixels: Int
    }

    enum Outcome: Equatable {
        /// No item table to read (libheif refuses such a file itself).
        case unknown
        case footprint(Footprint)
        /// The item table cannot say what the decode reaches.
        case unreadable(String)
    }

    /// Derived images nested deeper than this are refused: real files nest one level (a grid of
    /// coded tiles), and each level multiplies the work.
    static let maxDepth = 8

    /// For item `item`, or the primary image when nil.
    static func measure(_ data: Data, item: Int? = nil) -> Outcome {
        guard let table = HEIFItemTable([UInt8](data)) else { return .unknown }
        guard let root = item ?? table.primary, table[root] != nil else { return .unknown }
        var walk = Walk(table: table)
        do {
            return .footprint(try walk.measure(root, depth: 0))
        } catch {
            return .unreadable(error.reason)
        }
    }

    struct Failure: Error {
        let reason: String
    }

    private struct Walk {
        /// An item and whether libde265 decodes it (a depth map is measured, not decoded).
        struct Visit: Hashable {
            let id: Int
            let decoded: Bool
        }

        let table: HEIFItemTable
        var measured: [Visit: Footprint] = [:]
        var inProgress: Set<Int> = []

        mutating func measure(_ id: Int, depth: Int, decoded: Bool = true) throws(Failure) -> Footprint {
            let visit = Visit(id: id, decoded: decoded)
            if let known = measured[visit] { return known }
            guard let item = table[id] else { throw Failure(reason: "HEIF item \(id) is referenced but not listed") }
            guard depth <= maxDepth else { throw Failure(reason: "HEIF derived images are nested more than \(maxDepth) deep") }
            guard inProgress.insert(id).inserted else { throw Failure(reason: "HEIF item \(id) is derived from itself") }
            defer { inProgress.remove(id) }
            let own = try ownSize(of: item, id: id, decoded: decoded)
            let isDerived = item.type == "grid" || item.type == "iovl" || item.type == "iden"
            var footprint = Footprint(largest: own, decodedPixels: isDerived ? 0 : own.pixelCount ?? .max)
            let parts = item.derivedFrom.map { ($0, decoded) } + item.auxiliaries.map { ($0, decoded && table[$0]?.isAlpha == true) }
            for (next, nextDecoded) in parts {
                let part = try measure(next, depth: depth + 1, decoded: nextDecoded)
                if (part.largest.pixelCount ?? .max) > (footprint.largest.pixelCount ?? .max) { footprint.largest = part.largest }
                let (sum, overflow) = footprint.decodedPixels.addingReportingOverflow(part.decodedPixels)
                footprint.decodedPixels = overflow ? .max : sum
            }
            measured[visit] = footprint
            return footprint
        }

        /// A derived image's canvas, a coded picture's largest declared size, else its `ispe`.
        /// A coded picture libde265 decodes must have sequence parameter sets it accepts.
        func ownSize(of item: HEIFItemTable.Item, id: Int, decoded: Bool) throws(Failure) -> ImageSize {
            let declared = item.declaredSize ?? ImageSize(width: 0, height: 0)
            switch item.type {
            case "grid", "iovl":
                guard let canvas = canvas(of: item) else {
                    throw Failure(reason: "HEIF \(item.type == "grid" ? "grid" : "overlay") item \(id) is missing or truncated")
                }
                return canvas
            case "hvc1":
                guard let configuration = item.hevcConfiguration else { return declared }
                var sizes = [declared]
                for unit in HEVCSequenceParameterSetUnits.units(configuration: configuration, data: item.extents, of: table.bytes) {
                    do throws(HEVCSequenceParameterSet.Invalid) {
                        let parameters = try HEVCSequenceParameterSet(nal: unit)
                        if decoded { try parameters.checkDecodable() }
                        sizes.append(ImageSize(width: parameters.width, height: parameters.height))
                    } catch {
                        guard decoded else { continue }
                        throw Failure(reason: "HEIF item \(id) has an HEVC sequence parameter set the decoder refuses: \(error.reason)")
                    }
                }
                return sizes.max { ($0.pixelCount ?? .max) < ($1.pixelCount ?? .max) }!
            default:
                return declared
            }
        }

        /// The size written in a grid's or overlay's data (ISO/IEC 23008-12 6.6.2.3 and 6.6.2.2).
        func canvas(of item: HEIFItemTable.Item) -> ImageSize? {
            guard !item.unlocated, let first = item.extents.first else { return nil }
            var reader = ISOBMFFBytes(table.bytes, first)
            guard let version = reader.u8(), version == 0, let flags = reader.u8() else { return nil }
            let wide = flags & 1 == 1
            // A grid's row and column counts, or an overlay's four 16-bit fill values.
            guard reader.skip(item.type == "grid" ? 2 : 8) else { return nil }
            guard let width = wide ? reader.u32() : reader.u16(), let height = wide ? reader.u32() : reader.u16() else { return nil }
            return ImageSize(width: width, height: height)
        }
    }
}
