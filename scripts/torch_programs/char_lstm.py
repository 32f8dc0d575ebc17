"""A character-level language model as tutorials write it: pick a device, seed, an embedding,
a 2-layer LSTM (batch_first, dropout between layers) and a decoder, truncated backpropagation
over a DataLoader of windows, clip_grad_norm_, Adam, save and reload, then greedy generation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog. " * 8


class CharLSTM(nn.Module):
    def __init__(self, vocab, emb=8, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, batch_first=True, dropout=0.0)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.emb(x), state)
        return self.head(out), state


def init(model):
    """Weights that do not depend on the random generator, so both libraries start alike."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.2, 0.2, p.numel()).reshape(p.shape) * (1 + 0.05 * i))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in TEXT], dtype=torch.long)
    seq = 12
    n = (len(ids) - 1) // seq
    x = ids[: n * seq].view(n, seq)
    y = ids[1: n * seq + 1].view(n, seq)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=6,
                                         shuffle=False, drop_last=True)
    model = CharLSTM(len(chars)).to(device)
    init(model)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(3):
        model.train()
        state = None
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            if state is not None:
                state = tuple(s.detach() for s in state)
            logits, state = model(xb, state)
            loss = F.cross_entropy(logits.reshape(-1, len(chars)), yb.reshape(-1))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        print(f"CHECK epoch {epoch} loss {loss.item():.5f}")
    torch.save(model.state_dict(), "char_lstm.pt")
    model.load_state_dict(torch.load("char_lstm.pt"))
    model.eval()
    out = [stoi["t"]]
    state = None
    with torch.no_grad():
        for _ in range(20):
            logits, state = model(torch.tensor([[out[-1]]], device=device), state)
            out.append(int(logits[0, -1].argmax()))
    print("CHECK generated", "".join(chars[i] for i in out).replace(" ", "_"))


if __name__ == "__main__":
    main()
