import Foundation
import PipelineCore

/// The animation of an APNG, read from its chunks without decoding anything: the frames' controls
/// and where their compressed data lies. libpng knows nothing of APNG, so this walk is the only
/// reader of acTL, fcTL and fdAT; each frame is later handed to libpng as a PNG of its own.
///
/// Damage is handled as Chromium's decoder does (Firefox's differs only in keeping frames shown
/// before a later error): what is wrong before the image data (a second or empty acTL, a bad first
/// fcTL, fdAT before IDAT) makes the file its still image, with a warning; what is wrong after it
/// (fcTL sequence numbers out of order, a frame outside the canvas, an fcTL without fdAT, IDAT
/// after fdAT, a damaged chunk) is `badImageData`. A file cut short keeps the frames it holds
/// whole, with a `.truncated` warning. The frames in the file are played even when acTL announced
/// another count (with a warning).
struct APNGIndex {
    struct Frame {
        let control: APNGFrameControl
        /// The compressed image data: IDAT payloads, or fdAT payloads after their sequence number.
        let data: [Range<Data.Index>]
    }

    let header: PNGHeader
    let canvas: ImageSize
    /// The PLTE and tRNS chunks, whole, as each frame's PNG needs them.
    let colorChunks: [Range<Data.Index>]
    let frames: [Frame]
    /// acTL's `num_plays`: 0 = forever.
    let loopCount: Int
    /// The IDAT image is frame 0 (else it is the still image for viewers without APNG, skipped).
    let defaultImageIsFirstFrame: Bool
    let warnings: [ImageDecodeWarning]

    /// The frames can have transparent pixels: an alpha channel or tRNS.
    var hasTransparency: Bool { header.colorType == 4 || header.colorType == 6 || hasTRNS }
    let hasTRNS: Bool

    /// What the file holds: no animation (a plain PNG, or one whose animation is unusable, with
    /// the warning saying why), or an animation.
    enum Reading {
        case still(ImageDecodeWarning?)
        case animated(APNGIndex)
    }

    /// Reads `data`'s animation chunks. `maxFrames`: more frames than this throw
    /// `limitExceeded(.frames)` as soon as they are seen; `firstFrameOnly` stops after frame 0.
    static func read(_ data: Data, maxFrames: Int, firstFrameOnly: Bool = false) throws -> Reading {
        guard let header = PNGHeader(data) else { return .still(nil) }
        var walker = Walker(data: data, header: header, maxFrames: maxFrames, firstFrameOnly: firstFrameOnly)
        do {
            let cut = try PNGChunk.walk(data) { try walker.visit($0) }
            return try walker.finish(cut: cut)
        } catch let error as APNGStructureError {
            throw ImagePipeError.badImageData(reason: "PNG: broken animation: " + error.reason)
        }
    }

    fileprivate init(walker: Walker, frames: [Frame], warnings: [ImageDecodeWarning]) {
        header = walker.header
        canvas = walker.header.size
        colorChunks = walker.colorChunks
        self.frames = frames
        loopCount = walker.loopCount
        defaultImageIsFirstFrame = walker.defaultImageIsFirstFrame
        hasTRNS = walker.hasTRNS
        self.warnings = warnings
    }
}

/// The state of one walk over the chunks.
private struct Walker {
    let data: Data
    let header: PNGHeader
    let maxFrames: Int
    let firstFrameOnly: Bool

    var colorChunks: [Range<Data.Index>] = []
    var hasTRNS = false
    var declaredFrames: Int?
    var loopCount = 0
    /// Why the animation is ignored, once something before the image data says so.
    var ignoredBecause: String?
    var seenIDAT = false
    var seenFdAT = false
    var defaultImageIsFirstFrame = false
    var nextSequence: UInt32 = 0
    /// An fcTL seen before any acTL and before the image data: the first frame's, when an acTL
    /// follows it (the spec puts acTL first, but decoders and the spec's wording accept it later).
    var fcTLBeforeAcTL: PNGChunk?
    var pending: APNGFrameControl?
    var pendingData: [Range<Data.Index>] = []
    var frames: [APNGIndex.Frame] = []
    var stoppedEarly = false
    var reachedIEND = false

    var isAnimating: Bool { declaredFrames != nil && ignoredBecause == nil }

    init(data: Data, header: PNGHeader, maxFrames: Int, firstFrameOnly: Bool) {
        (self.data, self.header, self.maxFrames, self.firstFrameOnly) = (data, header, maxFrames, firstFrameOnly)
    }

    /// Handles one chunk; false stops the walk.
    mutating func visit(_ chunk: PNGChunk) throws -> Bool {
        switch chunk.type {
        case PNGChunk.IEND:
            reachedIEND = true
            return false
        case PNGChunk.PLTE, PNGChunk.tRNS:
            if !seenIDAT { colorChunks.append(chunk.start..<chunk.end) }
            if chunk.type == PNGChunk.tRNS { hasTRNS = true }
        case PNGChunk.acTL:
            try actl(chunk)
        case PNGChunk.fcTL:
            guard isAnimating else {
                if declaredFrames == nil, !seenIDAT, fcTLBeforeAcTL == nil { fcTLBeforeAcTL = chunk }
                break
            }
            return try fctl(chunk)
        case PNGChunk.IDAT:
            try idat(chunk)
        case PNGChunk.fdAT:
            guard isAnimating else { break }
            try fdat(chunk)
        default:
            break
        }
        // Without an animation there is nothing to read past the image data.
        return !(seenIDAT && !isAnimating)
    }

    private mutating func actl(_ chunk: PNGChunk) throws(APNGStructureError) {
        if seenIDAT {
            // After the image data: ignored in a plain PNG, an error in an animated one.
            if isAnimating { throw .init("acTL after the image data") }
            return
        }
        guard declaredFrames == nil else { return ignore("a second acTL") }
        guard chunk.payload.count == 8, chunk.crcMatches(in: data) else { return ignore("acTL is damaged") }
        let frames = Int(PNGChunk.bigEndian32(data, at: chunk.payload.lowerBound))
        guard frames > 0 else { return ignore("acTL announces no frames") }
        declaredFrames = frames
        loopCount = Int(PNGChunk.bigEndian32(data, at: chunk.payload.lowerBound + 4))
        if let early = fcTLBeforeAcTL {
            fcTLBeforeAcTL = nil
            _ = try? fctl(early)  // Before the image data, a bad fcTL only turns the animation off.
        }
    }

    private mutating func fctl(_ chunk: PNGChunk) throws -> Bool {
        let control: APNGFrameControl
        do {
            guard chunk.crcMatches(in: data) else { throw APNGStructureError("fcTL has a bad CRC") }
            control = try APNGFrameControl(data[chunk.payload], canvas: header.size)
            guard control.sequence == nextSequence else {
                throw APNGStructureError("fcTL has sequence number \(control.sequence), expected \(nextSequence)")
            }
        } catch let error as APNGStructureError {
            if seenIDAT { throw error }
            ignore(error.reason)
            return true
        }
        if !seenIDAT {
            guard pending == nil else {
                ignore("two fcTL chunks before the image data")
                return true
            }
            guard control.covers(header.size) else {
                ignore("the first frame does not cover the canvas")
                return true
            }
        }
        try closePendingFrame()
        if firstFrameOnly && !frames.isEmpty {
            stoppedEarly = true
            return false
        }
        nextSequence &+= 1
        pending = control
        return true
    }

    private mutating func idat(_ chunk: PNGChunk) throws(APNGStructureError) {
        guard isAnimating else {
            seenIDAT = true
            return
        }
        if seenFdAT { throw .init("IDAT after fdAT") }
        guard chunk.crcMatches(in: data) else { throw .init("IDAT has a bad CRC") }
        if !seenIDAT, pending != nil { defaultImageIsFirstFrame = true }
        seenIDAT = true
        if defaultImageIsFirstFrame { pendingData.append(chunk.payload) }
    }

    private mutating func fdat(_ chunk: PNGChunk) throws(APNGStructureError) {
        guard seenIDAT else { return ignore("fdAT before the image data") }
        seenFdAT = true
        // An fdAT may carry its sequence number and no data: a frame's data is what its fdATs hold.
        guard chunk.payload.count >= 4, chunk.crcMatches(in: data) else { throw .init("fdAT is cut short or damaged") }
        let sequence = PNGChunk.bigEndian32(data, at: chunk.payload.lowerBound)
        guard sequence == nextSequence else { throw .init("fdAT has sequence number \(sequence), expected \(nextSequence)") }
        guard pending != nil, !(defaultImageIsFirstFrame && frames.isEmpty) else {
            throw .init("fdAT without an fcTL before it")
        }
        nextSequence &+= 1
        if chunk.payload.count > 4 { pendingData.append(chunk.payload.lowerBound + 4..<chunk.payload.upperBound) }
    }

    /// Ends the pending frame at the next fcTL or IEND: it must have image data.
    private mutating func closePendingFrame() throws {
        guard let control = pending else { return }
        guard !pendingData.isEmpty else { throw APNGStructureError("frame \(frames.count) has an fcTL but no image data") }
        if frames.count >= maxFrames { throw ImagePipeError.limitExceeded(.frames, value: frames.count + 1, maximum: maxFrames) }
        frames.append(APNGIndex.Frame(control: control, data: pendingData))
        pending = nil
        pendingData = []
    }

    private mutating func ignore(_ reason: String) {
        if ignoredBecause == nil { ignoredBecause = reason }
    }

    /// The reading once the walk has ended: at IEND, at the end of the data (`cut`: inside a chunk),
    /// or after frame 0 for a first-frame-only decode.
    mutating func finish(cut: Bool) throws -> APNGIndex.Reading {
        if let reason = ignoredBecause {
            return .still(ImageDecodeWarning(.corruptData, message: "PNG: animation ignored (\(reason)); showing the still image"))
        }
        guard declaredFrames != nil else { return .still(nil) }
        // The frame being read when the data ended may lack data: only whole frames are kept.
        let truncated = !stoppedEarly && (cut || !reachedIEND)
        if !truncated { try closePendingFrame() }
        var warnings: [ImageDecodeWarning] = []
        if truncated {
            warnings.append(ImageDecodeWarning(.truncated, message: "PNG: file is truncated: \(frames.count) whole frames kept"))
        } else if let declared = declaredFrames, declared != frames.count, !stoppedEarly {
            warnings.append(ImageDecodeWarning(.corruptData, message: "PNG: acTL announces \(declared) frames, the file has \(frames.count)"))
        }
        guard !frames.isEmpty else {
            // Nothing animated survives: the still image (the IDAT decode reports its own damage).
            return .still(truncated ? nil : ImageDecodeWarning(.corruptData, message: "PNG: animation ignored (no frames); showing the still image"))
        }
        return .animated(APNGIndex(walker: self, frames: frames, warnings: warnings))
    }
}
