// Downloads every URL listed in a file (one per line) through HTTPLoader at a given concurrency
// and prints one JSON line: count, failures, bytes, seconds, MB/s. Used by Benchmarks/scripts/loader-http.sh.
import Foundation
import LoaderHTTP
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 2, let list = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: loader-http-bench URL-LIST [CONCURRENCY]\n".utf8))
    exit(2)
}
let concurrency = arguments.count >= 3 ? Int(arguments[2]) ?? 6 : 6
let urls = list.split(separator: "\n").compactMap { URL(string: String($0)) }

var configuration = HTTPLoaderConfiguration()
configuration.maxConcurrentDownloads = concurrency
configuration.timeout = 120
let loader = HTTPLoader(configuration: configuration)

let clock = ContinuousClock()
let start = clock.now
// Every request is handed to the loader at once: its own queue keeps `concurrency` in flight.
let (bytes, failures) = await withTaskGroup(of: Int?.self) { group in
    for url in urls {
        group.addTask { (try? await loader.loadTyped(url))?.data.count }
    }
    var total = (bytes: 0, failures: 0)
    for await count in group {
        if let count { total.bytes += count } else { total.failures += 1 }
    }
    return total
}
let elapsed = clock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let line = String(
    format: "{\"tool\":\"imagepipe\",\"count\":%d,\"failures\":%d,\"bytes\":%d,\"seconds\":%.3f,\"MBps\":%.1f}",
    urls.count, failures, bytes, seconds, Double(bytes) / seconds / 1e6)
print(line)
exit(failures == 0 ? 0 : 1)
