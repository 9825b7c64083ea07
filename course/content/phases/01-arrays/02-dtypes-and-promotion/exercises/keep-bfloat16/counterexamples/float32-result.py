# max-score: 7
# why: the strong float32 bias promotes the result to float32: the dtype the lesson keeps is lost
def shift_and_scale(activations, bias):
    return (activations + bias) * {{scale}}
