// Decodes every frame of each APNG through CodersPNG and prints files per CPU second;
// Benchmarks/scripts/coders-apng.sh compares it with Benchmarks/python/pillow_apng.py on the same files.
// usage: coders-apng-bench ROUNDS FILE...   or   coders-apng-bench --dump DIR FILE...
// (--dump writes every frame as raw RGBA, DIR/<file name>.<frame>.rgba, for pillow_apng.py --compare)
import CodersPNG
import Foundation
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 3, let rounds = Int(arguments[1]) ?? (arguments[1] == "--dump" && arguments.count >= 4 ? 0 : nil) else {
    FileHandle.standardError.write(Data("usage: coders-apng-bench ROUNDS FILE...\n".utf8))
    exit(2)
}
let dumping = arguments[1] == "--dump"
let paths = Array(arguments.dropFirst(dumping ? 3 : 2))
let files = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
let coder = PNGCoder()

if dumping {
    for (path, data) in zip(paths, files) {
        let image = try coder.decode(data, options: ImageDecodeOptions())
        for index in 0..<image.frameCount {
            let name = URL(fileURLWithPath: path).lastPathComponent
            try Data(try image.frame(at: index).converted(to: .rgba8).bytes).write(to: URL(fileURLWithPath: "\(arguments[2])/\(name).\(index).rgba"))
        }
    }
    exit(0)
}

/// CPU seconds of this single-threaded process: on a shared machine wall time measures the
/// neighbours as much as the decoder.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

var checksum = 0
let start = cpuSeconds()
for _ in 0..<rounds {
    for data in files {
        let image = try coder.decode(data, options: ImageDecodeOptions())
        // In order, as a player or encoder does (each frame asked for once; frame 0 is the poster),
        // through `Image.frame(at:)`, the public way: the frame cache only adds bookkeeping.
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
