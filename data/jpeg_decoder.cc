#include "data/jpeg_decoder.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

// jpeglib.h needs FILE and size_t declared first.
#include <jerror.h>
#include <jpeglib.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "data/decode.h"

namespace switchyard {
namespace data {
namespace {

constexpr int kMaxScans = 1000;

// Everything the decode touches lives here, constructed before setjmp, so
// the longjmp out of libjpeg skips no C++ destructor and finds every value
// in memory.
struct JpegContext {
  // Zeroed: jpeg_destroy_decompress after an error in
  // jpeg_create_decompress must see no memory manager.
  jpeg_decompress_struct cinfo{};
  jpeg_error_mgr err{};
  jpeg_progress_mgr progress{};
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX + 64] = {0};
  Image image;
  std::vector<JSAMPLE> row;  // one CMYK row
};

JpegContext* Context(j_common_ptr cinfo) {
  return static_cast<JpegContext*>(cinfo->client_data);
}

// libjpeg's default error_exit prints and calls exit(); this returns to the
// decoder instead.
[[noreturn]] void ErrorExit(j_common_ptr cinfo) {
  JpegContext* ctx = Context(cinfo);
  (*cinfo->err->format_message)(cinfo, ctx->message);
  std::longjmp(ctx->jump, 1);
}

// Warnings are silent (corrupt-but-decodable data is common in the wild),
// except the end of the data before the end of the image: libjpeg would pad
// with grey and call it success.
void EmitMessage(j_common_ptr cinfo, int level) {
  if (level >= 0 || cinfo->err->msg_code != JWRN_JPEG_EOF) return;
  JpegContext* ctx = Context(cinfo);
  std::snprintf(ctx->message, sizeof(ctx->message),
                "the file ends before the image data does (truncated)");
  std::longjmp(ctx->jump, 1);
}

void Progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number <= kMaxScans) return;
  JpegContext* ctx = Context(cinfo);
  std::snprintf(ctx->message, sizeof(ctx->message),
                "more than %d progressive scans (a decompression bomb?)", kMaxScans);
  std::longjmp(ctx->jump, 1);
}

// PIL's MULDIV255: a * b / 255, rounded, in integers.
inline uint8_t MulDiv255(int a, int b) {
  const int t = a * b + 128;
  return static_cast<uint8_t>(((t >> 8) + t) >> 8);
}

}  // namespace

bool LooksLikeJpeg(absl::string_view bytes) {
  return bytes.size() >= 3 && static_cast<uint8_t>(bytes[0]) == 0xFF &&
         static_cast<uint8_t>(bytes[1]) == 0xD8 && static_cast<uint8_t>(bytes[2]) == 0xFF;
}

absl::StatusOr<Image> DecodeJpeg(absl::string_view bytes, absl::string_view name,
                                 const DecodeLimits& limits) {
  JpegContext ctx;
  jpeg_decompress_struct& cinfo = ctx.cinfo;
  cinfo.err = jpeg_std_error(&ctx.err);
  ctx.err.error_exit = ErrorExit;
  ctx.err.emit_message = EmitMessage;
  if (setjmp(ctx.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": corrupt JPEG: ", ctx.message));
  }
  jpeg_create_decompress(&cinfo);
  cinfo.client_data = &ctx;
  ctx.progress.progress_monitor = Progress;
  cinfo.progress = &ctx.progress;
  // libjpeg's own working memory (progressive coefficients: 2 bytes per
  // sample of the whole image) within a bound tied to the pixel limit.
  cinfo.mem->max_memory_to_use = static_cast<long>(limits.max_pixels) * 10 + (64 << 20);
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
               static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (absl::Status s = CheckDimensions(name, "JPEG", cinfo.image_width,
                                       cinfo.image_height, limits);
      !s.ok()) {
    jpeg_destroy_decompress(&cinfo);
    return s;
  }
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  // libjpeg-turbo converts grayscale, YCbCr and RGB to RGB itself; YCCK to
  // CMYK, which we convert below.
  cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(&cinfo);
  if (cinfo.output_components != (cmyk ? 4 : 3)) {
    std::snprintf(ctx.message, sizeof(ctx.message), "unexpected %d output components",
                  cinfo.output_components);
    std::longjmp(ctx.jump, 1);
  }
  const int width = static_cast<int>(cinfo.output_width);
  const int height = static_cast<int>(cinfo.output_height);
  ctx.image = Image(width, height);
  if (cmyk) ctx.row.resize(static_cast<size_t>(width) * 4);
  // Adobe's CMYK JPEGs (Photoshop, PIL) store inverted values.
  const bool inverted = cinfo.saw_Adobe_marker;
  while (cinfo.output_scanline < cinfo.output_height) {
    const int y = static_cast<int>(cinfo.output_scanline);
    JSAMPROW dest = cmyk ? ctx.row.data() : ctx.image.at(y, 0);
    if (jpeg_read_scanlines(&cinfo, &dest, 1) != 1) {
      std::snprintf(ctx.message, sizeof(ctx.message), "no data for row %d", y);
      std::longjmp(ctx.jump, 1);
    }
    if (!cmyk) continue;
    uint8_t* out = ctx.image.at(y, 0);
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = &ctx.row[static_cast<size_t>(x) * 4];
      // Ink amounts c, m, y, k; R = (255 - k) - c (255 - k) / 255, in
      // PIL's integer arithmetic (Pillow's cmyk2rgb).
      const int k_free = inverted ? p[3] : 255 - p[3];
      for (int c = 0; c < 3; ++c) {
        const int ink = inverted ? 255 - p[c] : p[c];
        out[x * 3 + c] = static_cast<uint8_t>(k_free - MulDiv255(ink, k_free));
      }
    }
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return std::move(ctx.image);
}

}  // namespace data
}  // namespace switchyard
