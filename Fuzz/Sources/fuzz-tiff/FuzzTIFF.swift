import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzTIFF {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.tiff.fuzzOneInput($0, $1) })
    }
}
