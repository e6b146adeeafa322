// Decodes every frame of each WebP/GIF file through CodersWebP/CodersGIF and prints images per
// CPU second; Benchmarks/scripts/coders-webp-gif.sh compares it with Benchmarks/c/decode_webp_gif.c on the same files.
// usage: coders-webp-gif-bench ROUNDS FILE...
import CodersGIF
import CodersWebP
import Foundation
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 3, let rounds = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: coders-webp-gif-bench ROUNDS FILE...\n".utf8))
    exit(2)
}
let files = try arguments.dropFirst(2).map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
let coders = ImageCodersManager()
coders.add(GIFCoder())
coders.add(WebPCoder())

/// CPU seconds of this single-threaded process, as Benchmarks/c/decode_webp_gif.c measures: on a machine shared
/// with other builds, wall time measures the neighbours as much as the decoder.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

var checksum = 0
let start = cpuSeconds()
for _ in 0..<rounds {
    for data in files {
        let image = try coders.decode(data, options: ImageDecodeOptions())
        // Every frame through `Image.frame(at:)`, the public way (frame 0 is the poster, decoded
        // once); each frame is asked for once, so the frame cache only adds bookkeeping.
        if image.animation != nil {
            for index in 0..<image.frameCount { checksum &+= Int(try image.frame(at: index).bytes[0]) }
        } else {
            checksum &+= Int(image.firstFrame.bytes[0])
        }
    }
}
let seconds = cpuSeconds() - start
let decoded = rounds * files.count
print(String(format: "%.2f images/s (%d decoded in %.3f s, checksum %d)", Double(decoded) / seconds, decoded, seconds, checksum & 0xff))
