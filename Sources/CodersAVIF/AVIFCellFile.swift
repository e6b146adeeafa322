import PipelineCore

/// One grid cell as libavif 0.11 writes it alone (`avifEncoderWrite`), taken apart for
/// `AVIFGridWriter`: the colour image's AV1 data and properties, its alpha image's, and the
/// metadata items (EXIF, XMP) that describe it. Properties are kept as libavif wrote them, so the
/// grid carries the same `av1C`, `pixi` and `colr` as a single-image file.
struct AVIFCellFile {
    struct Property: Hashable {
        /// The whole box.
        let box: [UInt8]
        let essential: Bool
        var type: String { String(decoding: box[4..<8], as: UTF8.self) }
    }

    struct Item {
        /// The `infe` box's flags (bit 0: hidden) and what follows its item ID (protection index,
        /// type, name, content type), to write again under another ID.
        let infoFlags: [UInt8]
        let infoTail: [UInt8]
        let payload: [UInt8]
        let properties: [Property]
    }

    /// The `ftyp` box.
    let fileType: [UInt8]
    /// The `hdlr` box.
    let handler: [UInt8]
    let colour: Item
    let alpha: Item?
    /// Items with a `cdsc` reference to the colour image.
    let metadata: [Item]

    init(_ bytes: [UInt8]) throws(ImagePipeError) {
        let top = AVIFBox.children(of: bytes, in: 0..<bytes.count)
        guard let ftyp = top.first(where: { $0.type == "ftyp" }), let metaBox = top.first(where: { $0.type == "meta" }) else {
            throw Self.unexpected("no ftyp or meta box")
        }
        let meta = AVIFMetaBox(bytes, metaBox)
        guard let handler = meta.children.first, handler.type == "hdlr", let primary = meta.primary else { throw Self.unexpected("no hdlr or pitm") }
        fileType = Array(bytes[ftyp.range])
        self.handler = Array(bytes[handler.range])
        colour = try Self.item(primary, of: meta)
        let references = meta.references.filter { $0.to == [primary] }
        alpha = try references.first { $0.type == "auxl" }.map { reference throws(ImagePipeError) in try Self.item(reference.from, of: meta) }
        var metadata: [Item] = []
        for reference in references where reference.type == "cdsc" { metadata.append(try Self.item(reference.from, of: meta)) }
        self.metadata = metadata
    }

    private static func item(_ id: Int, of meta: AVIFMetaBox) throws(ImagePipeError) -> Item {
        let bytes = meta.bytes
        guard let info = meta.item(id), let location = meta.locations?.first(where: { $0.id == id }), location.method == 0 else {
            throw unexpected("item \(id) has no item info or location in the file")
        }
        // infe: version and flags, then the ID (2 bytes in version 2, else 4).
        guard let infe = AVIFBox.children(of: bytes, in: info.info).first, infe.payload.count >= 8 else {
            throw unexpected("item \(id)'s item info is short")
        }
        let start = infe.payload.lowerBound
        let tailStart = start + 4 + (bytes[start] == 2 ? 2 : 4)
        var payload: [UInt8] = []
        for extent in location.extents {
            guard extent.length > 0, extent.offset <= bytes.count, extent.length <= bytes.count - extent.offset else {
                throw unexpected("item \(id)'s data lies outside the file")
            }
            payload += bytes[extent.offset..<extent.offset + extent.length]
        }
        var properties: [Property] = []
        for association in meta.associations(of: id) {
            guard let box = meta.property(association.property) else { throw unexpected("item \(id) names a missing property") }
            properties.append(Property(box: Array(bytes[box.range]), essential: association.essential))
        }
        return Item(
            infoFlags: Array(bytes[start + 1..<start + 4]), infoTail: Array(bytes[tailStart..<infe.end]),
            payload: payload, properties: properties)
    }

    /// libavif wrote a file we cannot take apart: a bug on our side, not the caller's.
    private static func unexpected(_ what: String) -> ImagePipeError {
        .encodingFailed(reason: "AVIF grid: libavif's cell file is not as expected: \(what)")
    }
}
