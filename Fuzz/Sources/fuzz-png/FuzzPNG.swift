import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzPNG {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.png.fuzzOneInput($0, $1) })
    }
}
