import PipelineCore

/// Which item properties must be marked essential in `ipma`, and which must not, as libavif ≥ 1.0
/// checks while parsing (`avifParseItemPropertyAssociation`); libavif 0.11 does not check. A
/// decoder that ignored a non-essential `clap`, `irot` or `imir` would show other pixels than one
/// that applied it, so MIAF (ISO/IEC 23000-22 Amd. 2, 7.3.9) requires transformative properties to
/// be essential, and libavif 1.x refuses the whole file otherwise.
enum AVIFEssentialProperties {
    /// AV1 operating point (AVIF 2.3.2.1.1), layer selector (HEIF 6.5.11.1) and the
    /// transformative properties.
    static let mustBeEssential: Set<String> = ["a1op", "lsel", "clap", "irot", "imir"]
    /// AV1 layered image indexing (AVIF 2.3.2.3.2).
    static let mustNotBeEssential: Set<String> = ["a1lx"]

    /// Throws `badImageData` naming the item and property of the first association that breaks
    /// the rule.
    static func check(_ meta: AVIFMetaBox) throws(ImagePipeError) {
        for box in meta.associationBoxes {
            for entry in box.entries {
                for association in entry.associations {
                    guard let type = meta.property(association.property)?.type else { continue }
                    if !association.essential && mustBeEssential.contains(type) {
                        throw .badImageData(
                            reason: "AVIF item \(entry.item) has a '\(type)' property not marked essential, which the AVIF and MIAF specifications forbid (libavif 1.x refuses the file)")
                    }
                    if association.essential && mustNotBeEssential.contains(type) {
                        throw .badImageData(
                            reason: "AVIF item \(entry.item) has an '\(type)' property marked essential, which the AVIF specification forbids (libavif 1.x refuses the file)")
                    }
                }
            }
        }
    }
}
