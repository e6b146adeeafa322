import Foundation

/// Choices a fuzz target makes about one input (chunk sizes, thumbnail boxes, frame indices),
/// derived from the input's bytes: the same input always takes the same path, so every finding
/// replays exactly, here and in the regression tests.
struct FuzzRandom {
    private var state: UInt64

    /// Seeded by FNV-1a over all of `data`: any mutation changes every later choice.
    init(_ data: Data) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        state = hash
    }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        return range.lowerBound + Int(span == 0 ? next() : next() % span)
    }

    mutating func bool() -> Bool { next() & 1 == 1 }

    /// True once in `n` times.
    mutating func oneIn(_ n: Int) -> Bool { next() % UInt64(n) == 0 }
}
