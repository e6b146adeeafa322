import PipelineCore

/// What one `trak` of an image sequence says about itself, read as libavif ≥ 1.0 reads it, to
/// tell the tracks that libavif 0.11 must not see: it reads every track as a picture, so an audio
/// track (no width or height) fails the file, and it takes the first auxiliary track of the colour
/// track as alpha whatever it holds, so a depth map became the alpha plane.
struct AVIFTrack {
    /// `mdia/hdlr`'s handler type: `pict`, `vide`, `auxv` for pictures, `soun` for audio.
    private(set) var handler: String?
    /// The first track ID of `tref/auxl`: the track this one is auxiliary to (0: none).
    private(set) var auxiliaryTo = 0
    /// True when a sample entry is `av01`.
    private(set) var isAV1 = false
    /// The URN of the `auxi` box of the first `av01` sample entry.
    private(set) var auxiliaryType: String?
    /// The track's own `meta` box (EXIF and XMP items, as libavif writes them).
    private(set) var meta: AVIFBox?

    /// `trak` lies in `bytes` (a `moov` box's).
    init(_ bytes: [UInt8], _ trak: AVIFBox) {
        for child in AVIFBox.children(of: bytes, in: trak.payload) {
            switch child.type {
            case "meta" where meta == nil:
                meta = child
            case "tref":
                if let auxl = AVIFBox.child("auxl", of: bytes, in: child) {
                    var reader = ISOBMFFBytes(bytes, auxl.payload)
                    auxiliaryTo = reader.u32() ?? 0
                }
            case "mdia":
                if let hdlr = AVIFBox.child("hdlr", of: bytes, in: child) {
                    // Version and flags, pre_defined, then the handler type.
                    var reader = ISOBMFFBytes(bytes, hdlr.payload)
                    if reader.skip(8) { handler = reader.fourCC() }
                }
                if let entry = Self.av1SampleEntry(bytes, mdia: child) {
                    isAV1 = true
                    auxiliaryType = AVIFBox.children(of: bytes, in: entry).first { $0.type == "auxi" }.flatMap { AVIFAuxiliaryType.read(bytes, $0) }
                }
            default:
                continue
            }
        }
    }

    /// libavif ≥ 1.0 checks the size of `pict`, `vide` and `auxv` tracks and takes its colour and
    /// alpha tracks among the AV1 ones, whatever their handler; so a track that is neither a
    /// picture nor AV1 (audio, text, metadata) plays no part. An auxiliary track whose `auxi`
    /// names something other than alpha is never its alpha either (without `auxi`, as old libavif
    /// wrote alpha tracks, it is).
    var isIgnoredByLibavif1: Bool {
        if let handler, !["pict", "vide", "auxv"].contains(handler), !isAV1 { return true }
        return auxiliaryTo != 0 && auxiliaryType != nil && !AVIFAuxiliaryType.isAlpha(auxiliaryType)
    }

    /// The boxes of the first `av01` entry of `minf/stbl/stsd` (version and flags, the entry
    /// count, then sample entries; an `av01` entry is a VisualSampleEntry of 78 bytes, then boxes).
    private static func av1SampleEntry(_ bytes: [UInt8], mdia: AVIFBox) -> Range<Int>? {
        guard let minf = AVIFBox.child("minf", of: bytes, in: mdia), let stbl = AVIFBox.child("stbl", of: bytes, in: minf),
            let stsd = AVIFBox.child("stsd", of: bytes, in: stbl), stsd.payload.count >= 8,
            let av01 = AVIFBox.children(of: bytes, in: stsd.payload.lowerBound + 8..<stsd.end).first(where: { $0.type == "av01" })
        else { return nil }
        return av01.payload.count > 78 ? av01.payload.lowerBound + 78..<av01.end : av01.end..<av01.end
    }
}
