import Foundation
import FuzzTargets

/// `fuzz-seeds TARGET FOLDER`: writes the target's generated seed images into FOLDER (see
/// `FuzzSeeds`); `Fuzz/run.sh` merges them into the corpus with the fixtures.
@main
enum FuzzSeedsTool {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let target = FuzzTarget(rawValue: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: fuzz-seeds TARGET FOLDER\n".utf8))
            exit(2)
        }
        let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)
        for (name, data) in try FuzzSeeds.make(for: target) {
            try data.write(to: folder.appendingPathComponent(name), options: .atomic)
        }
    }
}
