#include "data/png_decoder.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "data/decode.h"

namespace switchyard {
namespace data {
namespace {

// State of one decode, constructed before setjmp (see jpeg_decoder.cc).
struct PngContext {
  const unsigned char* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
  char message[256] = {0};
  Image image;
  std::vector<png_bytep> rows;
};

[[noreturn]] void OnError(png_structp png, png_const_charp message) {
  auto* ctx = static_cast<PngContext*>(png_get_error_ptr(png));
  std::snprintf(ctx->message, sizeof(ctx->message), "%s", message);
  png_longjmp(png, 1);
}

// libpng's default prints warnings (bad ancillary chunks, sRGB profiles) to
// stderr; they do not affect the pixels we keep.
void OnWarning(png_structp, png_const_charp) {}

void ReadFromMemory(png_structp png, png_bytep out, png_size_t length) {
  auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
  if (length > ctx->size - ctx->offset) {
    png_error(png, "the file ends before the image data does (truncated)");
  }
  std::memcpy(out, ctx->data + ctx->offset, length);
  ctx->offset += length;
}

}  // namespace

bool LooksLikePng(absl::string_view bytes) {
  return bytes.size() >= 8 &&
         png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) == 0;
}

absl::StatusOr<Image> DecodePng(absl::string_view bytes, absl::string_view name,
                                const DecodeLimits& limits) {
  PngContext ctx;
  ctx.data = reinterpret_cast<const unsigned char*>(bytes.data());
  ctx.size = bytes.size();
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, OnError, OnWarning);
  if (png == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat(name, ": cannot create a PNG decoder (out of memory?)"));
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return absl::ResourceExhaustedError(
        absl::StrCat(name, ": cannot create a PNG decoder (out of memory?)"));
  }
  if (setjmp(png_jmpbuf(png)) != 0) {
    png_destroy_read_struct(&png, &info, nullptr);
    return absl::InvalidArgumentError(absl::StrCat(name, ": corrupt PNG: ", ctx.message));
  }
  png_set_read_fn(png, &ctx, ReadFromMemory);
  png_read_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info);
  const png_uint_32 height = png_get_image_height(png, info);
  if (absl::Status s = CheckDimensions(name, "PNG", width, height, limits); !s.ok()) {
    png_destroy_read_struct(&png, &info, nullptr);
    return s;
  }
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) {
    png_set_expand_gray_1_2_4_to_8(png);
  }
  if (bit_depth == 16) png_set_strip_16(png);  // the high byte, as PIL
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    png_set_gray_to_rgb(png);
  }
  // Alpha, and the alpha that expanding a tRNS chunk adds: dropped.
  if ((color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS)) {
    png_set_strip_alpha(png);
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != static_cast<size_t>(width) * 3) {
    std::snprintf(ctx.message, sizeof(ctx.message),
                  "unexpected row of %zu bytes after conversion to RGB8",
                  static_cast<size_t>(png_get_rowbytes(png, info)));
    png_longjmp(png, 1);
  }
  ctx.image = Image(static_cast<int>(width), static_cast<int>(height));
  ctx.rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y) ctx.rows[y] = ctx.image.at(y, 0);
  png_read_image(png, ctx.rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return std::move(ctx.image);
}

}  // namespace data
}  // namespace switchyard
