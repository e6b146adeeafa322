import Foundation
import PipelineCore

/// An ICC profile split over APP2 segments, as the ICC specification (annex B.4) stores it in a
/// JPEG: each segment starts `ICC_PROFILE\0`, a 1-based sequence number and the segment count,
/// then its part of the profile. Put together by sequence number, as libjpeg's
/// `jpeg_read_icc_profile` does, and refused when numbers repeat or are missing or the counts
/// disagree.
struct JPEGICCSegments {
    static let signature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    private var parts: [Int: ArraySlice<UInt8>] = [:]
    private var counts: Set<Int> = []
    private var malformed = false

    var isEmpty: Bool { parts.isEmpty && !malformed }

    /// Whether an APP2 segment's payload is part of an ICC profile.
    static func isICC(_ segment: ArraySlice<UInt8>) -> Bool {
        segment.starts(with: signature)
    }

    mutating func add(_ segment: ArraySlice<UInt8>) {
        let header = segment.startIndex + Self.signature.count
        guard segment.count >= Self.signature.count + 2 else {
            malformed = true
            return
        }
        let sequence = Int(segment[header]), count = Int(segment[header + 1])
        counts.insert(count)
        if parts.updateValue(segment[(header + 2)...], forKey: sequence) != nil { malformed = true }
    }

    /// The profile's bytes, or why the segments do not make one.
    func assemble() -> Result<Data, ImageColorConversionError> {
        guard let count = counts.first, counts.count == 1, !malformed, count > 0 else {
            return .failure(ImageColorConversionError(reason: "its APP2 segments disagree on their count or repeat a number"))
        }
        guard parts.count == count, (1...count).allSatisfy({ parts[$0] != nil }) else {
            return .failure(ImageColorConversionError(reason: "\(count - parts.count) of its \(count) APP2 segments are missing"))
        }
        var data = Data(capacity: (1...count).reduce(0) { $0 + parts[$1]!.count })
        for sequence in 1...count { data.append(contentsOf: parts[sequence]!) }
        return .success(data)
    }

    /// The profile within `options`' size limit, or nil and a warning; (nil, nil) without one.
    func profile(options: ImageDecodeOptions) -> (ImageColorProfile?, ImageDecodeWarning?) {
        guard !isEmpty else { return (nil, nil) }
        switch assemble() {
        case .success(let data):
            return options.acceptingColorProfile(.icc(data), format: "JPEG")
        case .failure(let error):
            return (nil, ImageDecodeWarning(.colorProfileIgnored, message: "JPEG: ICC profile ignored: \(error.reason)"))
        }
    }
}

extension JPEGICCSegments {
    /// Profile bytes one APP2 segment holds: 65,535 less the length field, signature and numbers.
    static let maxBytesPerSegment = 65_535 - 2 - 14

    /// `profile` as APP2 segments, as libjpeg's `jpeg_write_icc_profile` splits it. Nil when it
    /// needs more than 255 segments.
    static func segments(_ profile: Data) -> [JPEGAppSegments.Segment]? {
        let count = (profile.count + maxBytesPerSegment - 1) / maxBytesPerSegment
        guard count > 0, count <= 255 else { return nil }
        return (0..<count).map { index in
            let start = profile.startIndex + index * maxBytesPerSegment
            let part = profile[start..<min(start + maxBytesPerSegment, profile.endIndex)]
            return JPEGAppSegments.Segment(marker: 0xE2, payload: signature + [UInt8(index + 1), UInt8(count)] + part)
        }
    }
}
