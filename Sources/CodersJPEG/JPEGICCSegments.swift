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
        guard segment.count >= Self.signature.count + 2 else { malformed = true; return }
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

    /// `jpeg` with `profile` written as APP2 segments after SOI and a JFIF APP0, where libjpeg's
    /// `jpeg_write_icc_profile` puts them. Nil when the profile needs more than 255 segments.
    static func embedding(_ profile: Data, in jpeg: Data) -> Data? {
        let count = (profile.count + maxBytesPerSegment - 1) / maxBytesPerSegment
        guard count > 0, count <= 255, jpeg.count >= 4 else { return nil }
        var insertAt = jpeg.startIndex + 2
        if jpeg[insertAt] == 0xFF, jpeg[insertAt + 1] == 0xE0, jpeg.count >= 6 {
            insertAt += 2 + (Int(jpeg[insertAt + 2]) << 8 | Int(jpeg[insertAt + 3]))
        }
        guard insertAt <= jpeg.endIndex else { return nil }
        var out = Data(capacity: jpeg.count + profile.count + count * 18)
        out.append(jpeg[..<insertAt])
        for index in 0..<count {
            let start = profile.startIndex + index * maxBytesPerSegment
            let part = profile[start..<min(start + maxBytesPerSegment, profile.endIndex)]
            let length = 2 + signature.count + 2 + part.count
            out.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)])
            out.append(contentsOf: signature + [UInt8(index + 1), UInt8(count)])
            out.append(part)
        }
        out.append(jpeg[insertAt...])
        return out
    }
}
