#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNActivation.h"
#else

/* Pointwise activations (see the list in generic/THNNActivation.c). updateOutput: output =
 * f(input, p0, p1), output resized as input (it may be input: in place). updateGradInput:
 * gradInput = gradOutput * f'(input) (output is the forward's result, which some derivatives
 * read; it may be NULL for those that do not), resized as input. */
#define THNN_ACTIVATION_DECL(NAME)                                                            \
  int THNN_(NAME##_updateOutput)(THTensor *output, THTensor *input, double p0, double p1);    \
  int THNN_(NAME##_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,                \
                                    THTensor *input, THTensor *output, double p0, double p1);
THNN_ACTIVATION_DECL(ReLU)
THNN_ACTIVATION_DECL(LeakyReLU)
THNN_ACTIVATION_DECL(ELU)
THNN_ACTIVATION_DECL(GELU)
THNN_ACTIVATION_DECL(GELUTanh)
THNN_ACTIVATION_DECL(SiLU)
THNN_ACTIVATION_DECL(Softplus)
THNN_ACTIVATION_DECL(Hardtanh)
THNN_ACTIVATION_DECL(SELU)
THNN_ACTIVATION_DECL(CELU)
THNN_ACTIVATION_DECL(Mish)
THNN_ACTIVATION_DECL(Hardswish)
THNN_ACTIVATION_DECL(Hardsigmoid)
THNN_ACTIVATION_DECL(LogSigmoid)
THNN_ACTIVATION_DECL(Hardshrink)
THNN_ACTIVATION_DECL(Softshrink)
THNN_ACTIVATION_DECL(Threshold)
#undef THNN_ACTIVATION_DECL

#endif
