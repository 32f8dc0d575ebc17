"""Logging a run to TensorBoard and saving a dict that holds numpy arrays."""
import tempfile

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter


def main():
    d = tempfile.mkdtemp()
    writer = SummaryWriter(d)
    w = torch.linspace(0, 1, 10, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    for step in range(5):
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        opt.step()
        writer.add_scalar("loss", loss.item(), step)
        writer.add_histogram("w", w, step)
    writer.add_hparams({"lr": 0.1, "momentum": 0.9}, {"hparam/loss": loss.item()})
    writer.close()
    torch.save({"w": w.detach(), "labels": np.arange(3)}, d + "/data.pt")
    data = torch.load(d + "/data.pt", weights_only=False)
    print(f"CHECK loss {loss.item():.6f} labels {data['labels'].tolist()}")


if __name__ == "__main__":
    main()
