// CodersTIFF throughput, one thread, in images per CPU second.
//   coders-tiff-bench decode ROUNDS FILE...      full decodes, against Benchmarks/c/decode_tiff.c
//   coders-tiff-bench thumbnail ROUNDS FILE...   256 px thumbnails (decoded, not encoded)
// Benchmarks/scripts/coders-tiff.sh runs them on the same files.
import CodersTIFF
import Foundation
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 4, let rounds = Int(arguments[2]), ["decode", "thumbnail"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: coders-tiff-bench decode|thumbnail ROUNDS FILE...\n".utf8))
    exit(2)
}

/// CPU seconds of this process, as the C baseline measures them.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

var options = ImageDecodeOptions(firstFrameOnly: true, maxDecodeTime: nil)
if arguments[1] == "thumbnail" { options.thumbnailPixelSize = ImageSize(width: 256, height: 256) }
let coder = TIFFCoder()
for path in arguments.dropFirst(3) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var checksum = 0
    let start = cpuSeconds()
    for _ in 0..<rounds {
        let image = try coder.decode(data, options: options)
        checksum &+= Int(image.firstFrame.bytes[image.firstFrame.bytes.count / 2])
    }
    let seconds = cpuSeconds() - start
    print(String(format: "%@ %@ %.2f images/cpu-s (checksum %d)", arguments[1], (path as NSString).lastPathComponent, Double(rounds) / seconds, checksum))
}
