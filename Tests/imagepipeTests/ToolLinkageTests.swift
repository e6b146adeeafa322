import Foundation
import Testing
import TestSupport

/// What the tool loads when it starts: libcurl and the TLS, Kerberos and HTTP/2 libraries under it
/// are opened by the first download, so a run on local files never loads them.
struct ToolLinkageTests {
    @Test("imagepipe links no curl or TLS library; it opens libcurl when it first downloads")
    func curlIsOpenedOnlyToDownload() throws {
        let output = String(decoding: try TestProcesses.run("/usr/bin/ldd", [CLIRunner.binary.path]), as: UTF8.self)
        let libraries = output.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(libraries.contains { $0.hasPrefix("libjpeg.so") }, "ldd output not understood: \(libraries)")
        for library in ["libcurl", "libssl", "libgnutls", "libgssapi_krb5", "libnghttp2"] {
            #expect(!libraries.contains { $0.hasPrefix(library + ".so") }, "\(library) is linked: \(libraries)")
        }
    }
}
