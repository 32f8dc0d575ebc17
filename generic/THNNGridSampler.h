#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNGridSampler.h"
#else

/* Spatial transformer sampling (PyTorch's grid_sample): output[n, c, h, w] is input[n, c] read
 * at the point grid[n, h, w] = (x, y) in [-1, 1] coordinates (x along W, y along H), by mode
 * (THNN_GRID_BILINEAR, THNN_GRID_NEAREST, THNN_GRID_BICUBIC) with points outside the input
 * handled by paddingMode (THNN_GRID_ZEROS, THNN_GRID_BORDER, THNN_GRID_REFLECTION). With
 * alignCorners, -1 and 1 are the centres of the corner pixels, else their outer edges.
 * input (N, C, H, W) and grid (N, oH, oW, 2) may be strided; output is resized to
 * (N, C, oH, oW). Each returns 0, or -1 with an error recorded. */
int THNN_(SpatialGridSampler_updateOutput)(THTensor *output, THTensor *input, THTensor *grid,
                                           int mode, int paddingMode, int alignCorners);

/* The gradients of the sampling for gradOutput (N, C, oH, oW): gradInput (input's shape) and
 * gradGrid (grid's shape), either NULL when not wanted. Nearest sampling is piecewise constant
 * in the grid, so its gradGrid is zero. */
int THNN_(SpatialGridSampler_updateGradInput)(THTensor *gradInput, THTensor *gradGrid,
                                              THTensor *gradOutput, THTensor *input,
                                              THTensor *grid, int mode, int paddingMode,
                                              int alignCorners);

/* The same over volumes: input (N, C, D, H, W), grid (N, oD, oH, oW, 3) of points (x, y, z)
 * (x along W, y along H, z along D), output (N, C, oD, oH, oW); modes THNN_GRID_BILINEAR
 * (trilinear) and THNN_GRID_NEAREST. */
int THNN_(VolumetricGridSampler_updateOutput)(THTensor *output, THTensor *input, THTensor *grid,
                                              int mode, int paddingMode, int alignCorners);
int THNN_(VolumetricGridSampler_updateGradInput)(THTensor *gradInput, THTensor *gradGrid,
                                                 THTensor *gradOutput, THTensor *input,
                                                 THTensor *grid, int mode, int paddingMode,
                                                 int alignCorners);

#endif
