import Foundation
import Testing

@testable import PipelineCore

@Suite("Path pieces of keys")
struct PathTextTests {
    /// Strings NSString answers for on Linux: the answers must be the same.
    static let safe = [
        "", "/", "a", "a.png", ".png", ".hidden", "a.", "a..png", "..", ".", "a/..", "a/.", "/x/.png",
        "x/a.png/", "a.b/c", "file.tar.gz", "a/b.c/", "photo@2x.png", "é.png", "a/é", "dir.d/", "x.png?y=1",
        "https:/x/y.jpg", "...", "a b.p g", "/a/b/", "🙂.🙂",
    ]

    @Test("Extension, last component and stem equal NSString's", arguments: safe)
    func equalToNSString(path: String) {
        let ns = path as NSString
        #expect(PathText.pathExtension(path) == ns.pathExtension)
        #expect(PathText.lastPathComponent(path) == ns.lastPathComponent)
        #expect(PathText.deletingPathExtension(path) == ns.deletingPathExtension)
    }

    @Test("Strings NSString traps on get the answers it would give by its rules")
    func stringsNSStringTrapsOn() {
        #expect(PathText.pathExtension("a//é") == "")
        #expect(PathText.pathExtension("x//é.png") == "png")
        #expect(PathText.lastPathComponent("a//// //") == " ")
        #expect(PathText.deletingPathExtension("a//é.png/") == "a/é")
        #expect(PathText.deletingPathExtension(". ///b//") == ". /b")
    }
}
