// libjxl, opened on first use instead of linked (see CLazyLibrary.h): with libhwy, brotli, lcms2
// and the C++ runtime it costs every start of a program that never reads a JPEG XL. CodersJXL
// calls the `ip_Jxl…` functions declared in CJXL.h, never libjxl's own names.
#define _GNU_SOURCE
#include "../CJXL/CJXL.h"
#include <CChildProcess.h>
#include <CLazyLibrary.h>
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JXL_FUNCTIONS(X) \
    X(JxlSignatureCheck) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderRewind) \
    X(JxlDecoderSkipFrames) \
    X(JxlDecoderSubscribeEvents) \
    X(JxlDecoderSetKeepOrientation) \
    X(JxlDecoderSetParallelRunner) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderReleaseInput) \
    X(JxlDecoderCloseInput) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderGetFrameHeader) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderSetBoxBuffer) \
    X(JxlDecoderReleaseBoxBuffer) \
    X(JxlDecoderSetDecompressBoxes) \
    X(JxlDecoderGetBoxType) \
    X(JxlDecoderFlushImage) \
    X(JxlDecoderSetProgressiveDetail) \
    X(JxlDecoderSkipCurrentFrame) \
    X(JxlDecoderSetUnpremultiplyAlpha) \
    X(JxlEncoderCreate) \
    X(JxlEncoderDestroy) \
    X(JxlEncoderSetParallelRunner) \
    X(JxlEncoderInitBasicInfo) \
    X(JxlEncoderSetBasicInfo) \
    X(JxlColorEncodingSetToSRGB) \
    X(JxlEncoderSetColorEncoding) \
    X(JxlEncoderSetICCProfile) \
    X(JxlEncoderFrameSettingsCreate) \
    X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderSetFrameDistance) \
    X(JxlEncoderSetFrameLossless) \
    X(JxlEncoderInitFrameHeader) \
    X(JxlEncoderSetFrameHeader) \
    X(JxlEncoderAddImageFrame) \
    X(JxlEncoderCloseInput) \
    X(JxlEncoderCloseFrames) \
    X(JxlEncoderProcessOutput) \
    X(JxlEncoderGetError) \
    X(JxlEncoderUseContainer) \
    X(JxlEncoderUseBoxes) \
    X(JxlEncoderAddBox) \
    X(JxlEncoderCloseBoxes)

#define JXL_INDEX(name) index_##name,
enum { JXL_FUNCTIONS(JXL_INDEX) function_count };
#define JXL_NAME(name) #name,
static const char *const names[] = {JXL_FUNCTIONS(JXL_NAME)};
static void *functions[function_count];

/// libjxl's `name`, typed as its header declares it.
#define JXL(name) ((__typeof__(name) *)functions[index_##name])

// Debian's libjxl is built to print every failure it meets (a corrupt file, a truncated one, our
// runner stopping it) on stderr, through `__vfprintf_chk`/`__fprintf_chk`, with no setting to turn
// that off; nothing of a library may print there. Once libjxl is open, its own entries for those
// two functions in its relocation table (the GOT slots its calls go through) are pointed at
// functions that print nothing. Only libjxl's calls change: every other library, and the program,
// keep the C library's. The failures themselves still arrive as returned statuses.
static int silent_vfprintf_chk(FILE *stream, int flag, const char *format, va_list arguments) {
    (void)stream, (void)flag, (void)format, (void)arguments;
    return 0;
}

static int silent_fprintf_chk(FILE *stream, int flag, const char *format, ...) {
    (void)stream, (void)flag, (void)format;
    return 0;
}

/// An address from the dynamic section: glibc relocates most entries in place, a few stay
/// relative to the load address.
static uintptr_t dynamic_address(uintptr_t value, uintptr_t base) { return value < base ? value + base : value; }

struct relro_search {
    uintptr_t base;
    uintptr_t start, end;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct relro_search *search = context;
    if (info->dlpi_addr != search->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            search->start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            search->end = search->start + info->dlpi_phdr[i].p_memsz;
        }
    }
    return 1;
}

static void replace_slot(void **slot, void *function, const struct relro_search *relro) {
    uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *page = (void *)((uintptr_t)slot & ~(page_size - 1));
    if (mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return;
    *slot = function;
    // Read-only again where the loader had made it so (RELRO); a lazily bound GOT stays writable.
    if ((uintptr_t)slot >= relro->start && (uintptr_t)slot < relro->end) mprotect(page, page_size, PROT_READ);
}

static const char *silence_diagnostics(void) {
    void *handle = dlopen("libjxl.so.0.7", RTLD_NOW | RTLD_NOLOAD);
    if (!handle) return NULL;
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map) {
        uintptr_t base = map->l_addr;
        const ElfW(Rela) *relocations = NULL;
        size_t relocations_size = 0;
        const ElfW(Sym) *symbols = NULL;
        const char *strings = NULL;
        for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; entry++) {
            switch (entry->d_tag) {
            case DT_JMPREL: relocations = (const ElfW(Rela) *)dynamic_address(entry->d_un.d_ptr, base); break;
            case DT_PLTRELSZ: relocations_size = entry->d_un.d_val; break;
            case DT_SYMTAB: symbols = (const ElfW(Sym) *)dynamic_address(entry->d_un.d_ptr, base); break;
            case DT_STRTAB: strings = (const char *)dynamic_address(entry->d_un.d_ptr, base); break;
            default: break;
            }
        }
        struct relro_search relro = {base, 0, 0};
        dl_iterate_phdr(find_relro, &relro);
        if (relocations && symbols && strings) {
            for (size_t i = 0; i < relocations_size / sizeof *relocations; i++) {
                const char *name = strings + symbols[ELF64_R_SYM(relocations[i].r_info)].st_name;
                void **slot = (void **)(base + relocations[i].r_offset);
                if (strcmp(name, "__vfprintf_chk") == 0) replace_slot(slot, (void *)silent_vfprintf_chk, &relro);
                if (strcmp(name, "__fprintf_chk") == 0) replace_slot(slot, (void *)silent_fprintf_chk, &relro);
            }
        }
    }
    dlclose(handle);
    return NULL;
}

static struct ip_lazy_library library = IP_LAZY_LIBRARY("libjxl.so.0.7", names, functions, silence_diagnostics);

const char *ip_jxl_open(void) { return ip_lazy_library_open(&library); }

JxlSignature ip_JxlSignatureCheck(const uint8_t* buf, size_t len) { return JXL(JxlSignatureCheck)(buf, len); }
JxlDecoder* ip_JxlDecoderCreate(const JxlMemoryManager* memory_manager) { return JXL(JxlDecoderCreate)(memory_manager); }
void ip_JxlDecoderDestroy(JxlDecoder* dec) { JXL(JxlDecoderDestroy)(dec); }
void ip_JxlDecoderRewind(JxlDecoder* dec) { JXL(JxlDecoderRewind)(dec); }
void ip_JxlDecoderSkipFrames(JxlDecoder* dec, size_t amount) { JXL(JxlDecoderSkipFrames)(dec, amount); }
JxlDecoderStatus ip_JxlDecoderSubscribeEvents(JxlDecoder* dec, int events_wanted) { return JXL(JxlDecoderSubscribeEvents)(dec, events_wanted); }
JxlDecoderStatus ip_JxlDecoderSetKeepOrientation(JxlDecoder* dec, JXL_BOOL skip_reorientation) { return JXL(JxlDecoderSetKeepOrientation)(dec, skip_reorientation); }
JxlDecoderStatus ip_JxlDecoderSetParallelRunner(JxlDecoder* dec, JxlParallelRunner parallel_runner, void* parallel_runner_opaque) { return JXL(JxlDecoderSetParallelRunner)(dec, parallel_runner, parallel_runner_opaque); }
JxlDecoderStatus ip_JxlDecoderProcessInput(JxlDecoder* dec) { return JXL(JxlDecoderProcessInput)(dec); }
JxlDecoderStatus ip_JxlDecoderSetInput(JxlDecoder* dec, const uint8_t* data, size_t size) { return JXL(JxlDecoderSetInput)(dec, data, size); }
size_t ip_JxlDecoderReleaseInput(JxlDecoder* dec) { return JXL(JxlDecoderReleaseInput)(dec); }
void ip_JxlDecoderCloseInput(JxlDecoder* dec) { JXL(JxlDecoderCloseInput)(dec); }
JxlDecoderStatus ip_JxlDecoderGetBasicInfo(const JxlDecoder* dec, JxlBasicInfo* info) { return JXL(JxlDecoderGetBasicInfo)(dec, info); }
JxlDecoderStatus ip_JxlDecoderGetColorAsEncodedProfile(const JxlDecoder* dec, const JxlPixelFormat* unused_format, JxlColorProfileTarget target, JxlColorEncoding* color_encoding) { return JXL(JxlDecoderGetColorAsEncodedProfile)(dec, unused_format, target, color_encoding); }
JxlDecoderStatus ip_JxlDecoderGetICCProfileSize(const JxlDecoder* dec, const JxlPixelFormat* unused_format, JxlColorProfileTarget target, size_t* size) { return JXL(JxlDecoderGetICCProfileSize)(dec, unused_format, target, size); }
JxlDecoderStatus ip_JxlDecoderGetColorAsICCProfile(const JxlDecoder* dec, const JxlPixelFormat* unused_format, JxlColorProfileTarget target, uint8_t* icc_profile, size_t size) { return JXL(JxlDecoderGetColorAsICCProfile)(dec, unused_format, target, icc_profile, size); }
JxlDecoderStatus ip_JxlDecoderGetFrameHeader(const JxlDecoder* dec, JxlFrameHeader* header) { return JXL(JxlDecoderGetFrameHeader)(dec, header); }
JxlDecoderStatus ip_JxlDecoderImageOutBufferSize(const JxlDecoder* dec, const JxlPixelFormat* format, size_t* size) { return JXL(JxlDecoderImageOutBufferSize)(dec, format, size); }
JxlDecoderStatus ip_JxlDecoderSetImageOutBuffer(JxlDecoder* dec, const JxlPixelFormat* format, void* buffer, size_t size) { return JXL(JxlDecoderSetImageOutBuffer)(dec, format, buffer, size); }
JxlDecoderStatus ip_JxlDecoderSetBoxBuffer(JxlDecoder* dec, uint8_t* data, size_t size) { return JXL(JxlDecoderSetBoxBuffer)(dec, data, size); }
size_t ip_JxlDecoderReleaseBoxBuffer(JxlDecoder* dec) { return JXL(JxlDecoderReleaseBoxBuffer)(dec); }
JxlDecoderStatus ip_JxlDecoderSetDecompressBoxes(JxlDecoder* dec, JXL_BOOL decompress) { return JXL(JxlDecoderSetDecompressBoxes)(dec, decompress); }
JxlDecoderStatus ip_JxlDecoderGetBoxType(JxlDecoder* dec, JxlBoxType type, JXL_BOOL decompressed) { return JXL(JxlDecoderGetBoxType)(dec, type, decompressed); }
JxlDecoderStatus ip_JxlDecoderFlushImage(JxlDecoder* dec) { return JXL(JxlDecoderFlushImage)(dec); }
JxlDecoderStatus ip_JxlDecoderSetProgressiveDetail(JxlDecoder* dec, JxlProgressiveDetail detail) { return JXL(JxlDecoderSetProgressiveDetail)(dec, detail); }
JxlDecoderStatus ip_JxlDecoderSkipCurrentFrame(JxlDecoder* dec) { return JXL(JxlDecoderSkipCurrentFrame)(dec); }
JxlDecoderStatus ip_JxlDecoderSetUnpremultiplyAlpha(JxlDecoder* dec, JXL_BOOL unpremul_alpha) { return JXL(JxlDecoderSetUnpremultiplyAlpha)(dec, unpremul_alpha); }
JxlEncoder* ip_JxlEncoderCreate(const JxlMemoryManager* memory_manager) { return JXL(JxlEncoderCreate)(memory_manager); }
void ip_JxlEncoderDestroy(JxlEncoder* enc) { JXL(JxlEncoderDestroy)(enc); }
JxlEncoderStatus ip_JxlEncoderSetParallelRunner(JxlEncoder* enc, JxlParallelRunner parallel_runner, void* parallel_runner_opaque) { return JXL(JxlEncoderSetParallelRunner)(enc, parallel_runner, parallel_runner_opaque); }
void ip_JxlEncoderInitBasicInfo(JxlBasicInfo* info) { JXL(JxlEncoderInitBasicInfo)(info); }
JxlEncoderStatus ip_JxlEncoderSetBasicInfo(JxlEncoder* enc, const JxlBasicInfo* info) { return JXL(JxlEncoderSetBasicInfo)(enc, info); }
void ip_JxlColorEncodingSetToSRGB(JxlColorEncoding* color_encoding, JXL_BOOL is_gray) { JXL(JxlColorEncodingSetToSRGB)(color_encoding, is_gray); }
JxlEncoderStatus ip_JxlEncoderSetColorEncoding(JxlEncoder* enc, const JxlColorEncoding* color) { return JXL(JxlEncoderSetColorEncoding)(enc, color); }
JxlEncoderStatus ip_JxlEncoderSetICCProfile(JxlEncoder* enc, const uint8_t* icc_profile, size_t size) { return JXL(JxlEncoderSetICCProfile)(enc, icc_profile, size); }
JxlEncoderFrameSettings* ip_JxlEncoderFrameSettingsCreate(JxlEncoder* enc, const JxlEncoderFrameSettings* source) { return JXL(JxlEncoderFrameSettingsCreate)(enc, source); }
JxlEncoderStatus ip_JxlEncoderFrameSettingsSetOption(JxlEncoderFrameSettings* frame_settings, JxlEncoderFrameSettingId option, int64_t value) { return JXL(JxlEncoderFrameSettingsSetOption)(frame_settings, option, value); }
JxlEncoderStatus ip_JxlEncoderSetFrameDistance(JxlEncoderFrameSettings* frame_settings, float distance) { return JXL(JxlEncoderSetFrameDistance)(frame_settings, distance); }
JxlEncoderStatus ip_JxlEncoderSetFrameLossless(JxlEncoderFrameSettings* frame_settings, JXL_BOOL lossless) { return JXL(JxlEncoderSetFrameLossless)(frame_settings, lossless); }
void ip_JxlEncoderInitFrameHeader(JxlFrameHeader* frame_header) { JXL(JxlEncoderInitFrameHeader)(frame_header); }
JxlEncoderStatus ip_JxlEncoderSetFrameHeader(JxlEncoderFrameSettings* frame_settings, const JxlFrameHeader* frame_header) { return JXL(JxlEncoderSetFrameHeader)(frame_settings, frame_header); }
JxlEncoderStatus ip_JxlEncoderAddImageFrame(const JxlEncoderFrameSettings* frame_settings, const JxlPixelFormat* pixel_format, const void* buffer, size_t size) { return JXL(JxlEncoderAddImageFrame)(frame_settings, pixel_format, buffer, size); }
void ip_JxlEncoderCloseInput(JxlEncoder* enc) { JXL(JxlEncoderCloseInput)(enc); }
void ip_JxlEncoderCloseFrames(JxlEncoder* enc) { JXL(JxlEncoderCloseFrames)(enc); }
JxlEncoderStatus ip_JxlEncoderProcessOutput(JxlEncoder* enc, uint8_t** next_out, size_t* avail_out) { return JXL(JxlEncoderProcessOutput)(enc, next_out, avail_out); }
JxlEncoderError ip_JxlEncoderGetError(JxlEncoder* enc) { return JXL(JxlEncoderGetError)(enc); }
JxlEncoderStatus ip_JxlEncoderUseContainer(JxlEncoder* enc, JXL_BOOL use_container) { return JXL(JxlEncoderUseContainer)(enc, use_container); }
JxlEncoderStatus ip_JxlEncoderUseBoxes(JxlEncoder* enc) { return JXL(JxlEncoderUseBoxes)(enc); }
JxlEncoderStatus ip_JxlEncoderAddBox(JxlEncoder* enc, const JxlBoxType type, const uint8_t* contents, size_t size, JXL_BOOL compress_box) { return JXL(JxlEncoderAddBox)(enc, type, contents, size, compress_box); }
void ip_JxlEncoderCloseBoxes(JxlEncoder* enc) { JXL(JxlEncoderCloseBoxes)(enc); }

// Encoding in a child process, so that an encode can be stopped: libjxl 0.7's encoder cannot stop
// inside a frame (its runner's failures hit JXL_CHECKs that abort the process), so a large frame is
// encoded by a forked copy of this process, which the caller kills when the answer is no longer
// wanted. After fork() only this thread exists in the child: it runs only libjxl (already open)
// and the C library's async-signal-safe calls, never Swift.

JxlParallelRetCode ip_jxl_sequential_runner(void *runner_opaque, void *jpegxl_opaque, JxlParallelRunInit init,
                                            JxlParallelRunFunction run, uint32_t start, uint32_t end) {
    (void)runner_opaque;
    if (!init || !run) return -1;
    JxlParallelRetCode status = init(jpegxl_opaque, 1);
    if (status != 0) return status;
    for (uint32_t value = start; value < end; value++) run(jpegxl_opaque, value, 0);
    return 0;
}

/// The child: every output byte written to `fd`, then 0; libjxl's error code + 100 when it fails,
/// 99 when the pipe does.
static int encode(void *encoder, int fd) {
    uint8_t buffer[1 << 16];
    for (;;) {
        uint8_t *next = buffer;
        size_t available = sizeof buffer;
        JxlEncoderStatus status = JXL(JxlEncoderProcessOutput)((JxlEncoder *)encoder, &next, &available);
        if (status == JXL_ENC_ERROR) return 100 + (int)JXL(JxlEncoderGetError)((JxlEncoder *)encoder);
        if (ip_child_write_all(fd, buffer, (size_t)(next - buffer)) != 0) return 99;
        if (status == JXL_ENC_SUCCESS) return 0;
    }
}

int ip_jxl_encode_in_child(JxlEncoder *encoder, int *read_fd) { return ip_child_start(encode, encoder, read_fd); }
