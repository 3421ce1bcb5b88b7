"""What faces the Hugging Face Hub: model arguments checked before loading, the model card, publishing.

    checkpoints.py      what a model argument names (a local folder or a Hub id), checked before anything loads
    model_card.py       the card's metadata and evaluation results, rebuilt from the folder's files
    model_card_body.py  the card's prose
    publishing.py       the end of a recipe (save, card, push) and `push_folder`

Usage::

    from rusty_hf.hub.publishing import push_folder, write_model_card
    write_model_card("outputs/tiny-sft")
    push_folder("outputs/tiny-sft", "me/rusty-tiny")

Nothing is imported here, so `rusty_hf.hub.checkpoints` stays light for the entry points that check a
model argument before loading torch.
"""
