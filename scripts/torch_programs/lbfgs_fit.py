"""A curve fit with LBFGS and a closure (strong Wolfe line search), old-style Variables, and
indexing by a Python range."""
import torch
from torch.autograd import Variable


def main():
    torch.manual_seed(0)
    x = torch.linspace(-2, 2, 50, dtype=torch.float64)
    y = 1.5 * torch.sin(2.0 * x) + 0.3
    a = Variable(torch.tensor([1.0], dtype=torch.float64), requires_grad=True)
    w = Variable(torch.tensor([1.8], dtype=torch.float64), requires_grad=True)
    b = Variable(torch.zeros(1, dtype=torch.float64), requires_grad=True)
    opt = torch.optim.LBFGS([a, w, b], lr=1, max_iter=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((a * torch.sin(w * x) + b - y) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        loss = opt.step(closure)
    print(f"CHECK loss {loss.item():.3e} a {a.item():.6f} w {w.item():.6f} b {b.item():.6f}")
    scores = torch.zeros(4, 3)
    labels = [2, 0, 1, 2]
    scores[range(4), labels] = 1.0
    print(f"CHECK picked {scores.argmax(1).tolist()} {scores[range(4), labels].sum().item()}")


if __name__ == "__main__":
    main()
