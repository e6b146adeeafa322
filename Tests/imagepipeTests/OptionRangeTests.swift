import Foundation
import Testing

@Suite("imagepipe numeric options")
struct OptionRangeTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test(
        "A number outside its flag's range is a usage error naming the flag and the range",
        arguments: [
            (
                ["convert", Samples.gif, "out.png", "--frame", "9223372036854775807"],
                "Error: The value '9223372036854775807' is invalid for '--frame <frame>': expected a whole number from 0 to 9999"
            ),
            (
                ["convert", Samples.gif, "out.png", "--frame=-1"],
                "Error: The value '-1' is invalid for '--frame <frame>': expected a whole number from 0 to 9999"
            ),
            (
                ["fetch", Samples.png, "--no-cache", "--concurrency", "9223372036854775807"],
                "Error: The value '9223372036854775807' is invalid for '--concurrency <concurrency>': expected a whole number from 1 to 256"
            ),
            (
                ["fetch", Samples.png, "--no-cache", "--concurrency", "0"],
                "Error: The value '0' is invalid for '--concurrency <concurrency>': expected a whole number from 1 to 256"
            ),
            (
                ["fetch", Samples.png, "--no-cache", "--quality", "101"],
                "Error: The value '101' is invalid for '--quality <quality>': expected a whole number from 0 to 100"
            ),
            (
                ["fetch", Samples.png, "--no-cache", "--thumbnail", "9223372036854775807x9223372036854775807"],
                "Error: --thumbnail must be WxH with W and H from 1 to 10000000, e.g. 256x256"
            ),
            (
                ["fetch", Samples.png, "--no-cache", "--transform", "crop:9223372036854775807,0,10,10"],
                "Error: invalid transform 'crop:9223372036854775807,0,10,10': X and Y must be from -10000000 to 10000000"
            ),
            (
                ["convert", Samples.png, "out.png", "--transform", "resize:10000001x10"],
                "Error: invalid transform 'resize:10000001x10': size must be WxH with W and H from 1 to 10000000"
            ),
            (
                ["convert", Samples.png, "out.png", "--transform", "round:1e300"],
                "Error: invalid transform 'round:1e300': radius must be from 0 to 10000000"
            ),
            (
                ["convert", Samples.png, "out.png", "--transform", "rotate:1e300"],
                "Error: invalid transform 'rotate:1e300': angle must be from -360 to 360"
            ),
            (
                ["convert", Samples.png, "out.png", "--transform", "blur:1e9"],
                "Error: invalid transform 'blur:1e9': radius must be from 0 to 1000"
            ),
        ])
    func outOfRange(arguments: [String], line: String) async throws {
        // Relative outputs land in the temporary folder, should a refused command write anything.
        let run = try await cli.run(arguments, in: temp.url)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").first.map(String.init) == line)
        #expect(temp.files.filter { $0 != "xdg" }.isEmpty, "nothing written")
    }

    @Test("--frame past the last frame names the frame and the frames the image has")
    func frameOutOfRange() async throws {
        let out = temp.path("frame.png")
        let run = try await cli.run(["convert", Samples.gif, out, "--frame", "99"])
        #expect(run.status == 1)
        #expect(run.stderr == "imagepipe: \(Samples.gif): frame 99 is out of range: the image has 12 frames (0–11)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        let still = try await cli.run(["convert", Samples.png, out, "--frame", "1"])
        #expect(still.stderr == "imagepipe: \(Samples.png): frame 1 is out of range: the image has 1 frame (0)\n")
        let last = try await cli.run(["convert", Samples.gif, out, "--frame", "11"])
        #expect(last.status == 0, "\(last.stderr)")
    }

    @Test("More concurrency than sources, up to the maximum, processes each source once")
    func concurrencyAboveSources() async throws {
        let run = try await cli.run(["fetch", Samples.png, Samples.gif, "--no-cache", "--json", "--concurrency", "256"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.jsonLines.count == 2)
    }
}
