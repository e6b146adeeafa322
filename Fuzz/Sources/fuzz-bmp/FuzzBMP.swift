import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzBMP {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.bmp.fuzzOneInput($0, $1) })
    }
}
