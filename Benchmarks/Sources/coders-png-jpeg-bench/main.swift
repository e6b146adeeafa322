// The Swift side of Benchmarks/scripts/coders-png-jpeg.sh, with the same command line as
// c/coders_bench.c so the script can run both the same way:
//
//   coders-bench decode png|jpeg SECONDS FILE...      full decodes per second
//   coders-bench thumb png|jpeg SIZE SECONDS FILE...  SIZExSIZE-fit thumbnails per second
//   coders-bench peak full|thumb SIZE FILE            decode once, print peak RSS in KiB
import CodersJPEG
import CodersPNG
import Foundation
import PipelineCore

func coder(for data: Data) -> any ImageCoder {
    ImageFormat.detect(in: data) == .png ? PNGCoder() : JPEGCoder()
}

func peakKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss
}

/// CPU seconds of this process, as the C program measures them (see coders_bench.c for why).
func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 5 else { fail("usage: see the comment at the top of main.swift") }

do {
    switch arguments[1] {
    case "peak":
        let data = try Data(contentsOf: URL(fileURLWithPath: arguments[4]))
        let box = Int(arguments[3]) ?? 256
        let options =
            arguments[2] == "thumb"
            ? ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: box, height: box)) : ImageDecodeOptions()
        let image = try coder(for: data).decode(data, options: options)
        print("\(image.pixelSize) peak_kib \(peakKiB())")
    case "decode", "thumb":
        let isThumbnail = arguments[1] == "thumb"
        guard !isThumbnail || arguments.count >= 6 else { fail("thumb needs SIZE SECONDS FILE...") }
        let box = isThumbnail ? Int(arguments[3]) ?? 256 : 0
        let seconds = Double(arguments[isThumbnail ? 4 : 3]) ?? 2
        let files = try arguments[(isThumbnail ? 5 : 4)...].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let coder: any ImageCoder = arguments[2] == "png" ? PNGCoder() : JPEGCoder()
        let options = isThumbnail ? ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: box, height: box)) : ImageDecodeOptions()
        var done = 0
        let start = cpuSeconds()
        var elapsed = 0.0
        repeat {
            for data in files {
                let image = try coder.decode(data, options: options)
                precondition(!image.pixelSize.isEmpty)
                done += 1
            }
            elapsed = cpuSeconds() - start
        } while elapsed < seconds
        print(String(format: "%.2f", Double(done) / elapsed))
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("error: \(error)")
}
