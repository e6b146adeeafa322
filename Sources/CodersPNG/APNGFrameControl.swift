import Foundation
import PipelineCore

/// One APNG `fcTL` chunk: where a frame goes on the canvas, how long it shows, and how it is drawn
/// and cleared up.
struct APNGFrameControl: Equatable {
    /// What happens to the frame's rectangle after it has been shown.
    enum Dispose: UInt8 {
        /// Left as drawn.
        case none = 0
        /// Cleared to transparent black.
        case background = 1
        /// Put back as it was before the frame was drawn.
        case previous = 2
    }

    /// How the frame's pixels meet the canvas.
    enum Blend: UInt8 {
        /// They replace the rectangle, alpha included.
        case source = 0
        /// They are composited over it.
        case over = 1
    }

    /// The payload is 26 bytes.
    static let byteCount = 26

    let sequence: UInt32
    let x: Int, y: Int, width: Int, height: Int
    let delayNumerator: Int
    /// As stored: 0 means 100 (the delay is in hundredths of a second).
    let delayDenominator: Int
    let dispose: Dispose
    let blend: Blend

    /// Seconds the frame shows, after the players' clamping rule.
    var duration: Double {
        AnimationFrameDuration.clamped(Double(delayNumerator) / Double(delayDenominator == 0 ? 100 : delayDenominator))
    }

    /// Reads the payload; throws a reason when it is malformed or its rectangle leaves `canvas`.
    init(_ payload: Data, canvas: ImageSize) throws(APNGStructureError) {
        guard payload.count == Self.byteCount else { throw .init("fcTL has \(payload.count) bytes, not \(Self.byteCount)") }
        let start = payload.startIndex
        func be32(_ at: Int) -> Int { Int(PNGChunk.bigEndian32(payload, at: start + at)) }
        func be16(_ at: Int) -> Int { Int(payload[start + at]) << 8 | Int(payload[start + at + 1]) }
        sequence = UInt32(be32(0))
        (width, height, x, y) = (be32(4), be32(8), be32(12), be32(16))
        (delayNumerator, delayDenominator) = (be16(20), be16(22))
        guard let dispose = Dispose(rawValue: payload[start + 24]), let blend = Blend(rawValue: payload[start + 25]) else {
            throw .init("fcTL has dispose \(payload[start + 24]) and blend \(payload[start + 25]); only 0-2 and 0-1 exist")
        }
        (self.dispose, self.blend) = (dispose, blend)
        guard width > 0, height > 0, x <= canvas.width - width, y <= canvas.height - height else {
            throw .init("frame \(width)x\(height) at \(x),\(y) is not inside the \(canvas.width)x\(canvas.height) canvas")
        }
    }

    func covers(_ canvas: ImageSize) -> Bool {
        x == 0 && y == 0 && width == canvas.width && height == canvas.height
    }
}

/// Why an APNG's animation chunks cannot be followed: the reason, for a warning (the file then
/// shows as its still image) or for `badImageData`.
struct APNGStructureError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
