import Foundation
import Testing

@Suite("imagepipe fetch with folders")
struct FetchFolderTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// `photos/`: two images, a text file, a hidden file, and `june/` holding an image and
    /// `june/raw/` another.
    func photos() throws -> String {
        let manager = FileManager.default
        let root = temp.path("photos")
        try manager.createDirectory(atPath: root + "/june/raw", withIntermediateDirectories: true)
        try manager.copyItem(atPath: Samples.png, toPath: root + "/badge.png")
        try manager.copyItem(atPath: Samples.jpeg, toPath: root + "/photo.jpg")
        try Data("not a picture\n".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: root + "/.DS_Store"))
        try manager.copyItem(atPath: Samples.webp, toPath: root + "/june/scene.webp")
        try manager.copyItem(atPath: Samples.gif, toPath: root + "/june/raw/spinner.gif")
        return root
    }

    func outputs(_ run: CLIRunner.Run) -> [String: String] {
        Dictionary(uniqueKeysWithValues: run.jsonLines.map { ($0["source"] as! String, ($0["output"] as? String) ?? "") })
    }

    @Test("fetch DIR takes the folder's images; a file that is not an image and a subfolder are skipped with a note, and the run succeeds")
    func folder() async throws {
        let root = try photos()
        let out = temp.path("out")
        let run = try await cli.run(["fetch", root, "-o", out, "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(outputs(run) == [root + "/badge.png": out + "/badge.png", root + "/photo.jpg": out + "/photo.jpg"])
        #expect(run.stderr.contains("imagepipe: \(root)/notes.txt: skipped, not an image"))
        #expect(run.stderr.contains("imagepipe: \(root)/june: skipped, a folder (give -r to take subfolders)"))
        #expect(!run.stderr.contains(".DS_Store") && !run.stderr.contains("error"))
    }

    @Test("fetch -r DIR takes the subfolders' images too, mirrored under -o")
    func recursive() async throws {
        let root = try photos()
        let out = temp.path("out")
        let run = try await cli.run(["fetch", "-r", root, "-o", out, "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            outputs(run) == [
                root + "/badge.png": out + "/badge.png", root + "/photo.jpg": out + "/photo.jpg",
                root + "/june/scene.webp": out + "/june/scene.webp", root + "/june/raw/spinner.gif": out + "/june/raw/spinner.gif",
            ])
        #expect(FileManager.default.fileExists(atPath: out + "/june/raw/spinner.gif"))
        #expect(run.stderr.contains("notes.txt: skipped, not an image") && !run.stderr.contains("a folder"))
    }

    @Test("A glob that catches a folder does not fail the run: the folder's own images are taken")
    func globWithFolder() async throws {
        let root = try photos()
        let out = temp.path("out")
        let run = try await cli.run(["fetch", root + "/badge.png", root + "/june", "-o", out, "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(outputs(run) == [root + "/badge.png": out + "/badge.png", root + "/june/scene.webp": out + "/scene.webp"])
        #expect(run.stderr.contains("\(root)/june/raw: skipped, a folder"))
    }

    @Test("Two folders with the same subfolder and file names give distinct outputs")
    func sameNamesInSubfolders() async throws {
        let manager = FileManager.default
        for folder in ["a/sub", "b/sub"] { try manager.createDirectory(atPath: temp.path(folder), withIntermediateDirectories: true) }
        try manager.copyItem(atPath: Samples.png, toPath: temp.path("a/sub/x.png"))
        try manager.copyItem(atPath: Samples.png, toPath: temp.path("b/sub/x.png"))
        let out = temp.path("out")
        let run = try await cli.run(["fetch", "-r", temp.path("a"), temp.path("b"), "-o", out, "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(outputs(run).values) == [out + "/sub/x.png", out + "/sub/x-2.png"])
    }

    @Test("A symbolic link leading out of the folder is skipped; one to a file inside it is taken")
    func links() async throws {
        let root = try photos()
        try FileManager.default.createSymbolicLink(atPath: root + "/outside.png", withDestinationPath: Samples.png)
        try FileManager.default.createSymbolicLink(atPath: root + "/again.png", withDestinationPath: "badge.png")
        try FileManager.default.createSymbolicLink(atPath: root + "/up", withDestinationPath: "..")
        let run = try await cli.run(["fetch", "-r", root, "-o", temp.path("out"), "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(outputs(run)[root + "/again.png"] == temp.path("out") + "/again.png")
        #expect(outputs(run)[root + "/outside.png"] == nil)
        #expect(run.stderr.contains("\(root)/outside.png: skipped, a symbolic link out of the folder"))
        #expect(run.stderr.contains("\(root)/up: skipped, a symbolic link out of the folder"))
    }

    @Test("A mirrored subfolder that is a symbolic link in the output folder is not written through")
    func linkedOutputSubfolder() async throws {
        let root = try photos()
        let out = temp.path("out"), elsewhere = temp.path("elsewhere")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/june", withDestinationPath: elsewhere)
        let run = try await cli.run(["fetch", "-r", root, "-o", out, "--no-cache"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("output folder '\(out)/june' is a symbolic link; outputs are not written through it"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        #expect(FileManager.default.fileExists(atPath: out + "/badge.png"))
    }

    @Test("The output folder inside the folder given is not taken as a source: a second run writes the same files")
    func outputInsideTheFolder() async throws {
        let root = try photos()
        for _ in 1...2 {
            let run = try await cli.run(["fetch", "-r", root, "-o", root + "/thumbs", "--no-cache", "--thumbnail", "16x16", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(outputs(run).count == 4 && !outputs(run).keys.contains { $0.contains("/thumbs/") }, "\(run.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/thumbs/thumbs"))
    }

    @Test("A file named directly that is not an image is skipped with a note, as in a folder; the images beside it are taken")
    func namedNonImage() async throws {
        let root = try photos()
        let out = temp.path("out")
        let run = try await cli.run(["fetch", root + "/notes.txt", root + "/badge.png", "-o", out, "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(outputs(run) == [root + "/badge.png": out + "/badge.png"])
        #expect(run.stderr.contains("imagepipe: \(root)/notes.txt: skipped, not an image"), "\(run.stderr)")
    }

    @Test("Nothing left to fetch is a failure that says so")
    func nothingToFetch() async throws {
        let root = try photos()
        let run = try await cli.run(["fetch", root + "/notes.txt", "-o", temp.path("out"), "--no-cache"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("notes.txt: skipped, not an image") && run.stderr.contains("no images to fetch"), "\(run.stderr)")
    }
}
