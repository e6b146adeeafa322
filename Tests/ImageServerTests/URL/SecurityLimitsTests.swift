import Foundation
import Testing

@testable import ImageServer

/// How the security options are read: gated, each overriding one limit, on top of the server's
/// per-option defaults, and in the cache key.
@Suite("security options in the URL")
struct SecurityLimitsTests {
    func options(_ path: String, allowed: Bool = true, defaults: ProcessingOptions = ProcessingOptions(), presets: [String: [String]] = [:]) throws(ProcessingURL.Malformed)
        -> ProcessingOptions
    {
        try ProcessingURL(
            path: path + "/plain/http://origin.test/a.png",
            settings: .init(presets: presets, now: 1_700_000_000, defaults: defaults, allowsSecurityOptions: allowed)
        ).options
    }

    @Test("each option sets its limit: megapixels as pixels, any byte count, frames over 0, any dimension")
    func values() throws {
        let limits = try options("/msr:2.5/msfs:-1/maf:7/mafr:0.5/mrd:640").limits
        #expect(limits == SecurityLimits(maxSourcePixels: 2_500_000, maxSourceBytes: -1, maxFrames: 7, maxFramePixels: 500_000, maxResultDimension: 640))
        let long = try options("/max_src_resolution:0/max_src_file_size:10/max_animation_frames:1/max_animation_frame_resolution:1/max_result_dimension:0").limits
        #expect(long.maxSourcePixels == 0 && long.maxSourceBytes == 10 && long.maxFrames == 1 && long.maxFramePixels == 1_000_000 && long.maxResultDimension == 0)
        for bad in ["/msr:-1", "/msr:nan", "/maf:0", "/mafr:x", "/mrd:1.5", "/msfs:", "/mrd:1:2"] {
            #expect(throws: ProcessingURL.Malformed.self, "\(bad)") { try options(bad) }
            #expect(throws: ProcessingURL.Malformed(status: 403, reason: "\(bad.dropFirst().prefix { $0 != ":" }): security options are not allowed on this server (--allow-security-options)")) {
                try options(bad, allowed: false)
            }
        }
    }

    @Test("the server's defaults come first, then the default preset, then the URL; limits reach the cache key")
    func order() throws {
        var defaults = ProcessingOptions()
        defaults.returnAttachment = true
        defaults.stripMetadata = false
        defaults.limits.maxResultDimension = 100
        let plain = try options("", defaults: defaults)
        #expect(plain.returnAttachment && !plain.stripMetadata && plain.limits.maxResultDimension == 100)
        let preset = try options("", defaults: defaults, presets: ["default": ["att:0", "mrd:50"]])
        #expect(!preset.returnAttachment && preset.limits.maxResultDimension == 50 && !preset.stripMetadata)
        let url = try options("/att:1/mrd:20/sm:1", defaults: defaults, presets: ["default": ["att:0", "mrd:50"]])
        #expect(url.returnAttachment && url.limits.maxResultDimension == 20 && url.stripMetadata)
        #expect(try options("").canonical == ProcessingOptions().canonical, "no limit changed, no key changed")
        #expect(try options("/mrd:20").canonical != ProcessingOptions().canonical)
        #expect(try options("/msr:1").canonical != options("/msr:2").canonical)
    }

    @Test("a preset's security options are checked when it is defined, and listed for the server's start")
    func presets() throws {
        #expect(try ProcessingPreset("p=msr:1/w:10/max_result_dimension:5").securityOptions == ["msr", "max_result_dimension"])
        #expect(throws: ProcessingPreset.Invalid.self) { try ProcessingPreset("p=maf:0") }
        #expect(try ProcessingPreset("p=w:10").securityOptions.isEmpty)
    }
}
